#include "oidc/clients.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "http/json.hpp"
#include "oidc/client_cache.hpp"
#include "oidc/issuer.hpp"

namespace svc::oidc {
namespace {

// The authority of an http(s) URI (RFC 3986 3.2): what follows "//" up to
// the path, query or fragment; nullopt when there is no "//".
std::optional<std::string_view> authority_of(std::string_view uri) {
  const size_t start = uri.find("://");
  if (start == std::string_view::npos) return std::nullopt;
  const std::string_view rest = uri.substr(start + 3);
  return rest.substr(0, rest.find_first_of("/?#"));
}

// The authority's port, when it has one, is 1 to 5 digits.
bool port_ok(std::string_view port) {
  return port.empty() ||
         (port.size() <= 5 && std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }));
}

// A host (and optional port) as RFC 3986 reads it: no userinfo ("@"), so
// http://127.0.0.1:80@evil.example/ is evil.example's, not a loopback URI.
bool is_loopback_http(std::string_view uri) {
  auto authority = authority_of(uri);
  if (!authority || authority->find('@') != std::string_view::npos) return false;
  for (std::string_view host : {"127.0.0.1", "localhost", "[::1]"}) {
    if (authority->substr(0, host.size()) != host) continue;
    const std::string_view after = authority->substr(host.size());
    if (after.empty() || (after[0] == ':' && port_ok(after.substr(1)))) return true;
  }
  return false;
}

// client_id:secret of an "Authorization: Basic" header, each form-decoded;
// false when there is no such header or it does not decode.
bool basic_credentials(const http::Request& request, std::string& id, std::string& secret) {
  std::string_view header = request.header("authorization");
  if (header.size() < 6 || core::ascii_lower(header.substr(0, 6)) != "basic ") return false;
  auto decoded = crypto::base64_decode(header.substr(6));
  if (!decoded) return false;
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) return false;
  auto i = form_decode(decoded->substr(0, colon));
  auto s = form_decode(decoded->substr(colon + 1));
  if (!i || !s) return false;
  id = *i;
  secret = *s;
  return true;
}

}  // namespace

http::ApiError oauth_error(int status, std::string_view error, std::string_view description) {
  http::JsonWriter w;
  w.open().kv("error", error).kv("error_description", description).close();
  http::ApiError e(status, w.str());
  if (error == "invalid_client") return std::move(e).with_header("WWW-Authenticate", "Basic realm=\"svc\"");
  return e;
}

std::string new_client_id() { return crypto::base64url_encode(crypto::random_bytes(16)); }
std::string new_client_secret() { return crypto::base64url_encode(crypto::random_bytes(32)); }

std::string redirect_uri_problem(std::string_view uri) {
  if (uri.empty() || uri.size() > 2048) return "must be 1 to 2048 characters";
  for (char c : uri) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F || c == '"' || c == '<' || c == '>' || c == '\\') {
      return "must not hold spaces, quotes or control characters";
    }
  }
  if (uri.find('#') != std::string_view::npos) return "must not have a fragment (RFC 6749 3.1.2)";
  const size_t colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0) return "must be an absolute URI";
  const std::string scheme = core::ascii_lower(uri.substr(0, colon));
  if ((scheme == "https" || scheme == "http") && uri.substr(colon, 3) == "://" &&
      authority_of(uri)->find('@') != std::string_view::npos) {
    return "must not hold user information (a user name or password before \"@\")";
  }
  if (scheme == "https") return uri.size() > 8 && uri.substr(colon, 3) == "://" ? "" : "must be an absolute URI";
  if (scheme == "http") return is_loopback_http(uri) ? "" : "http is only for loopback hosts; use https";
  // A native app's private-use scheme is a reverse domain name (RFC 8252 7.1).
  if (scheme.find('.') == std::string::npos) return "a custom scheme must be a reverse domain name (com.example.app)";
  return "";
}

std::string origin_of(std::string_view uri) {
  const size_t scheme_end = uri.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return "";
  const size_t path = uri.find_first_of("/?", scheme_end + 3);
  const std::string_view origin = uri.substr(0, path);
  return origin.size() > scheme_end + 3 ? core::ascii_lower(origin) : "";
}

std::string frontchannel_uri_problem(std::string_view uri, const std::vector<std::string>& redirect_uris) {
  if (std::string problem = redirect_uri_problem(uri); !problem.empty()) return problem;
  const std::string origin = origin_of(uri);
  const std::string_view scheme = std::string_view(origin).substr(0, origin.find(':'));
  if (scheme != "https" && scheme != "http") return "must be an https URI (or http on a loopback host)";
  for (const std::string& redirect : redirect_uris) {
    if (origin_of(redirect) == origin) return "";
  }
  return "must have the origin of one of the client's redirect URIs";
}

db::OAuthClient authenticate_client(const http::Request& request, const Params& params, long long site_id,
                                    core::Context& ctx) {
  std::string id;
  std::string secret;
  const bool basic = basic_credentials(request, id, secret);
  const auto body_secret = params.get("client_secret");
  if (basic && (body_secret || (params.get("client_id") && params.value("client_id") != id))) {
    throw oauth_error(400, "invalid_request", "use one client authentication method");
  }
  if (!basic) {
    id = params.value("client_id");
    secret = body_secret.value_or("");
  }
  if (!basic && request.header("authorization").size() > 0) {
    throw oauth_error(401, "invalid_client", "unsupported Authorization header");
  }
  auto client = id.empty() || id.size() > 64 ? std::nullopt : find_client(ctx, id);
  if (!client || client->site_id != site_id) throw oauth_error(401, "invalid_client", "unknown client");
  if (client->is_public) {
    if (!secret.empty()) throw oauth_error(401, "invalid_client", "a public client has no secret");
    return *client;
  }
  if (secret.empty() || !crypto::constant_time_equal(hash_hex(secret), client->secret_hash)) {
    throw oauth_error(401, "invalid_client", "client authentication failed");
  }
  return *client;
}

}  // namespace svc::oidc
