// GET and POST /oidc/N/authorize (OpenID Connect Core 3.1.2.1, RFC 6749
// 4.1.1, RFC 7636). Errors in client_id or redirect_uri get an error page
// and never a redirect (RFC 6749 4.1.2.1: no open redirector); every other
// error goes back to the registered redirect URI with state and iss.

#include <algorithm>
#include <set>

#include "core/text.hpp"
#include "oidc/client_cache.hpp"
#include "oidc/clients.hpp"
#include "oidc/flow.hpp"
#include "oidc/handlers.hpp"
#include "oidc/id_token.hpp"
#include "oidc/issuer.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {
namespace {

// The longest value each parameter may have; a longer one is invalid_request.
const std::map<std::string, size_t>& limits() {
  static const std::map<std::string, size_t> kLimits{
      {"response_type", 64}, {"scope", 512},  {"state", 1024},         {"nonce", 512},
      {"prompt", 64},        {"max_age", 10}, {"login_hint", 254},     {"ui_locales", 64},
      {"response_mode", 32}, {"display", 32}, {"code_challenge", 128}, {"code_challenge_method", 16},
  };
  return kLimits;
}

// The scopes svc knows, in this order; others are ignored (RFC 6749 3.3).
const char* const kScopes[] = {"openid", "email", "profile", "offline_access"};

std::string known_scopes(const std::string& requested) {
  std::vector<std::string> out;
  for (const char* s : kScopes) {
    if (has_scope(requested, s)) out.emplace_back(s);
  }
  return core::join(out, " ");
}

bool is_pkce_value(std::string_view v) {
  return v.size() >= 43 && v.size() <= 128 && std::all_of(v.begin(), v.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                  c == '_' || c == '~';
         });
}

http::Response bad_request_page(const std::string& message) {
  return message_page(400, "This sign-in request cannot be completed", message);
}

// The first problem of the parameters after client and redirect URI were
// accepted: {error, description}; {"", ""} when there is none.
std::pair<std::string, std::string> problem(const Params& p, const db::OAuthClient& client) {
  if (!p.repeated.empty()) return {"invalid_request", p.repeated + " is given more than once"};
  if (!p.malformed.empty()) return {"invalid_request", p.malformed + " is not well-formed"};
  for (const auto& [name, limit] : limits()) {
    if (p.value(name).size() > limit) return {"invalid_request", name + " is too long"};
  }
  if (p.get("request")) return {"request_not_supported", "request objects are not supported"};
  if (p.get("request_uri")) return {"request_uri_not_supported", "request_uri is not supported"};
  if (p.get("registration")) return {"registration_not_supported", "registration is not supported"};
  if (!p.get("response_type")) return {"invalid_request", "response_type is required"};
  if (p.value("response_type") != "code") return {"unsupported_response_type", "only response_type=code"};
  if (p.get("response_mode") && p.value("response_mode") != "query") {
    return {"invalid_request", "only response_mode=query"};
  }
  if (!has_scope(p.value("scope"), "openid")) return {"invalid_scope", "scope must include openid"};
  const std::string prompt = p.value("prompt");
  for (std::string_view v : core::split_words(prompt)) {
    if (v != "none" && v != "login" && v != "consent" && v != "select_account") {
      return {"invalid_request", "unknown prompt value"};
    }
  }
  if (has_scope(prompt, "none") && core::split_words(prompt).size() > 1) {
    return {"invalid_request", "prompt=none cannot be combined"};
  }
  if (p.get("max_age") && !core::parse_id(p.value("max_age")) && p.value("max_age") != "0") {
    return {"invalid_request", "max_age must be a number of seconds"};
  }
  const auto challenge = p.get("code_challenge");
  const auto method = p.get("code_challenge_method");
  if (!challenge && client.is_public) return {"invalid_request", "code_challenge (PKCE S256) is required"};
  if (!challenge && method) return {"invalid_request", "code_challenge_method without code_challenge"};
  if (challenge && method.value_or("plain") != "S256") {
    return {"invalid_request", "code_challenge_method must be S256"};
  }
  if (challenge && (challenge->size() != 43 || !is_pkce_value(*challenge))) {
    return {"invalid_request", "code_challenge must be a base64url SHA-256"};
  }
  return {"", ""};
}

db::OAuthRequest request_of(const Params& p, const db::Site& site, const db::OAuthClient& client) {
  db::OAuthRequest r;
  r.site_id = site.id;
  r.client_id = client.client_id;
  r.redirect_uri = p.value("redirect_uri");
  r.scope = known_scopes(p.value("scope"));
  r.state = p.value("state");
  r.nonce = p.value("nonce");
  r.code_challenge = p.value("code_challenge");
  r.prompt = p.value("prompt");
  if (p.get("max_age")) r.max_age = core::parse_id(p.value("max_age")).value_or(0);
  r.login_hint = p.value("login_hint");
  r.ui_locales = p.value("ui_locales");
  return r;
}

}  // namespace

bool is_pkce_verifier(std::string_view verifier) { return is_pkce_value(verifier); }

http::Response authorize(const http::Request& http, core::Context& ctx) {
  const db::Site site = path_site(http, ctx);
  const Params p = parse_params(http.method == "POST" ? std::string_view(http.body) : std::string_view(http.query));
  // client_id and redirect_uri first: until both are known good, nothing
  // goes to any redirect URI.
  const std::string client_id = p.value("client_id");
  if (client_id.empty() || client_id.size() > 64 || p.repeated == "client_id") {
    return bad_request_page("The request names no valid client.");
  }
  auto client = find_client(ctx, client_id);
  if (!client || client->site_id != site.id) return bad_request_page("The request names an unknown client.");
  const std::string redirect_uri = p.value("redirect_uri");
  // A URI registered before today's rules (one with user information, say)
  // is never redirected to either.
  if (p.repeated == "redirect_uri" ||
      std::find(client->redirect_uris.begin(), client->redirect_uris.end(), redirect_uri) ==
          client->redirect_uris.end() ||
      !redirect_uri_problem(redirect_uri).empty()) {
    return bad_request_page("The redirect URI is not registered for this client.");
  }
  db::OAuthRequest request = request_of(p, site, *client);
  Step step{site, *client, request, false, 302, {}};
  if (auto [error, description] = problem(p, *client); !error.empty()) {
    if (request.state.size() > limits().at("state")) request.state.clear();  // never echo an oversized one
    return error_redirect(step, error, description, ctx);
  }
  return proceed(step, current_sso(http, ctx, site), http, ctx);
}

}  // namespace svc::oidc
