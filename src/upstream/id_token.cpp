#include "upstream/id_token.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"
#include "crypto/jwk.hpp"
#include "upstream/http_client.hpp"

namespace svc::upstream {
namespace {

constexpr long long kJwksSeconds = 3600;
constexpr long long kLeewaySeconds = 60;  // clock skew allowed on exp and iat
constexpr std::size_t kMaxTokenBytes = 16 * 1024;

struct CachedJwks {
  std::vector<crypto::SigningKey> keys;
  long long fetched_at = 0;
};

// Per worker process; the mutex guards against threads sharing one worker.
std::mutex jwks_mutex;
std::map<std::string, CachedJwks>& jwks_cache() {
  static std::map<std::string, CachedJwks> cache;
  return cache;
}

std::optional<std::vector<crypto::SigningKey>> download_jwks(const config::Config& config, const std::string& url) {
  const Fetched reply = fetch(config, {url, "", {}});
  if (!reply.ok()) return std::nullopt;
  auto doc = crypto::parse_json_object(reply.body);
  if (!doc || !doc->HasMember("keys") || !(*doc)["keys"].IsArray()) return std::nullopt;
  std::vector<crypto::SigningKey> keys;
  for (const auto& jwk : (*doc)["keys"].GetArray()) {
    if (auto key = crypto::key_of_jwk(jwk)) keys.push_back(*key);
  }
  return keys;
}

// The key named `kid` with `alg`: from the cache, or after reading the JWKS
// again when the cache is old or lacks it. nullopt + jwks_down when the
// JWKS could not be read at all.
std::optional<crypto::SigningKey> find_key(const config::Config& config, const std::string& url, const std::string& kid,
                                           const std::string& alg, long long now, bool& jwks_down) {
  auto pick = [&](const std::vector<crypto::SigningKey>& keys) -> std::optional<crypto::SigningKey> {
    for (const auto& k : keys) {
      if ((kid.empty() || k.kid() == kid) && crypto::alg_name(k.alg()) == alg) return k;
    }
    return std::nullopt;
  };
  {
    std::lock_guard<std::mutex> lock(jwks_mutex);
    auto it = jwks_cache().find(url);
    if (it != jwks_cache().end() && now - it->second.fetched_at < kJwksSeconds) {
      if (auto k = pick(it->second.keys)) return k;
    }
  }
  auto keys = download_jwks(config, url);
  if (!keys) {
    jwks_down = true;
    return std::nullopt;
  }
  std::lock_guard<std::mutex> lock(jwks_mutex);
  jwks_cache()[url] = CachedJwks{*keys, now};
  return pick(*keys);
}

bool audience_ok(const rapidjson::Document& claims, const std::string& client_id) {
  auto aud = claims.FindMember("aud");
  if (aud == claims.MemberEnd()) return false;
  if (aud->value.IsString()) return crypto::json_view(aud->value) == client_id;
  if (!aud->value.IsArray() || aud->value.Empty()) return false;
  bool found = false;
  for (const auto& a : aud->value.GetArray()) found = found || (a.IsString() && crypto::json_view(a) == client_id);
  // Several audiences: azp must name us (Core 3.1.3.7 items 4 and 5).
  std::string azp;
  if (aud->value.Size() > 1 && (!crypto::read_string(claims, "azp", azp) || azp != client_id)) return false;
  return found;
}

// email_verified is a boolean, or (Apple) the string "true".
bool verified_flag(const rapidjson::Document& claims) {
  auto it = claims.FindMember("email_verified");
  if (it == claims.MemberEnd()) return false;
  if (it->value.IsBool()) return it->value.GetBool();
  return it->value.IsString() && crypto::json_view(it->value) == "true";
}

// Microsoft's multi-tenant issuer names its tenant as {tenantid}; the
// token's tid fills it in.
std::string expected_issuer(const db::UpstreamProvider& provider, const rapidjson::Document& claims) {
  const std::string marker = "{tenantid}";
  const std::size_t at = provider.issuer.find(marker);
  std::string tid;
  if (at == std::string::npos || !crypto::read_string(claims, "tid", tid) || tid.empty()) return provider.issuer;
  std::string out = provider.issuer;
  return out.replace(at, marker.size(), tid);
}

}  // namespace

const char* describe(IdTokenError error) {
  switch (error) {
    case IdTokenError::kNone:
      return "ok";
    case IdTokenError::kMalformed:
      return "the ID token is malformed";
    case IdTokenError::kUnknownKey:
      return "the ID token is signed by a key the provider does not publish";
    case IdTokenError::kBadSignature:
      return "the ID token's signature is wrong";
    case IdTokenError::kIssuer:
      return "the ID token is from another issuer";
    case IdTokenError::kAudience:
      return "the ID token is for another client";
    case IdTokenError::kExpired:
      return "the ID token has expired";
    case IdTokenError::kNonce:
      return "the ID token's nonce is not this sign-in's";
    case IdTokenError::kJwks:
      return "the provider's keys could not be read";
  }
  return "the ID token is malformed";
}

IdTokenResult verify_id_token(const config::Config& config, const db::UpstreamProvider& provider,
                              const std::string& token, const std::string& nonce, long long now) {
  IdTokenResult out;
  if (token.size() > kMaxTokenBytes) return out;
  const size_t dot1 = token.find('.');
  const size_t dot2 = dot1 == std::string::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string::npos || token.find('.', dot2 + 1) != std::string::npos) return out;
  const std::string_view view(token);
  const auto header_text = crypto::base64url_decode(view.substr(0, dot1));
  const auto header = header_text ? crypto::parse_json_object(*header_text) : std::nullopt;
  std::string kid;
  std::string alg;
  if (!header || header->HasMember("crit") || !crypto::read_string(*header, "kid", kid) ||
      !crypto::read_string(*header, "alg", alg, crypto::Member::kRequired) || !crypto::parse_alg(alg)) {
    return out;
  }
  bool jwks_down = false;
  auto key = find_key(config, provider.jwks_url, kid, alg, now, jwks_down);
  if (!key) {
    out.error = jwks_down ? IdTokenError::kJwks : IdTokenError::kUnknownKey;
    return out;
  }
  const auto signature = crypto::base64url_decode(view.substr(dot2 + 1));
  if (!signature || !key->verify(view.substr(0, dot2), *signature)) {
    out.error = IdTokenError::kBadSignature;
    return out;
  }
  const auto payload_text = crypto::base64url_decode(view.substr(dot1 + 1, dot2 - dot1 - 1));
  const auto claims = payload_text ? crypto::parse_json_object(*payload_text) : std::nullopt;
  std::string iss;
  std::string token_nonce;
  long long exp = 0;
  UpstreamIdentity& id = out.identity;
  if (!claims || !crypto::read_string(*claims, "iss", iss, crypto::Member::kRequired) ||
      !crypto::read_string(*claims, "sub", id.subject, crypto::Member::kRequired) || id.subject.empty() ||
      id.subject.size() > 255 || !crypto::read_int(*claims, "exp", exp, crypto::Member::kRequired) ||
      !crypto::read_string(*claims, "nonce", token_nonce) || !crypto::read_string(*claims, "email", id.email) ||
      !crypto::read_string(*claims, "given_name", id.given_name) ||
      !crypto::read_string(*claims, "family_name", id.family_name)) {
    return out;
  }
  if (iss != expected_issuer(provider, *claims)) {
    out.error = IdTokenError::kIssuer;
  } else if (!audience_ok(*claims, provider.client_id)) {
    out.error = IdTokenError::kAudience;
  } else if (exp + kLeewaySeconds <= now) {
    out.error = IdTokenError::kExpired;
  } else if (token_nonce.empty() || !crypto::constant_time_equal(token_nonce, nonce)) {
    out.error = IdTokenError::kNonce;
  } else {
    out.error = IdTokenError::kNone;
    id.email = core::ascii_lower(id.email);
    id.email_verified = !id.email.empty() && verified_flag(*claims);
  }
  return out;
}

}  // namespace svc::upstream
