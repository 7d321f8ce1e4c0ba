#include "config/keys_config.hpp"

#include <optional>
#include <vector>

#include "config/reader.hpp"
#include "crypto/encoding.hpp"

namespace svc::config {
namespace {

// [keys] jwt_previous: "kid:base64url-secret" entries, comma-separated.
std::vector<crypto::JwtKey> read_previous_jwt_keys(Reader& r) {
  std::vector<std::string> items;
  r.list("keys.jwt_previous", items);
  std::vector<crypto::JwtKey> keys;
  for (const auto& item : items) {
    size_t colon = item.find(':');
    auto secret = colon == std::string::npos ? std::nullopt : crypto::base64url_decode(item.substr(colon + 1));
    if (!secret || secret->size() < 32 || colon == 0) {
      throw ConfigError("configuration key [keys] jwt_previous: expected kid:base64url-secret entries");
    }
    keys.push_back({item.substr(0, colon), *secret});
  }
  return keys;
}

}  // namespace

void read_keys(Reader& r, KeySettings& keys) {
  r.required("keys.jwt_kid", keys.jwt.current.kid);
  keys.jwt.current.secret = r.secret("keys.jwt_secret", 32, 256, true);
  keys.jwt.previous = read_previous_jwt_keys(r);
  keys.id_key = r.secret("keys.id_key", 32, 32, true);
  keys.sms_key = r.secret("keys.sms_key", 32, 256, true);
  keys.reset_key = r.secret("keys.reset_key", 32, 256, true);
  r.str("keys.legacy_password_key", keys.legacy_password_key);
  keys.signing_kek = r.secret("keys.signing_kek", 32, 32, false);
  keys.mfa_key = r.secret("keys.mfa_key", 32, 32, false);
  keys.mail_key = r.secret("keys.mail_key", 32, 32, false);
  keys.webhook_key = r.secret("keys.webhook_key", 32, 32, false);
}

namespace {

// https://host[:port][/path], or http:// to a loopback host; no query,
// fragment, space or final slash (the issuer is this + "/oidc/N").
bool is_oidc_base(const std::string& url) {
  if (url.find_first_of("#? \r\n\t\"<>") != std::string::npos || url.back() == '/') return false;
  if (url.rfind("https://", 0) == 0) return url.size() > 8;
  for (const char* host : {"http://127.0.0.1", "http://localhost", "http://[::1]"}) {
    const std::string prefix(host);
    if (url.rfind(prefix, 0) == 0 &&
        (url.size() == prefix.size() || url[prefix.size()] == ':' || url[prefix.size()] == '/')) {
      return true;
    }
  }
  return false;
}

}  // namespace

void read_tokens(Reader& r, TokenSettings& tokens, const KeySettings& keys) {
  r.str("tokens.issuer", tokens.issuer);
  const std::string& iss = tokens.issuer;
  if (iss.rfind("https://", 0) != 0 || iss.size() <= 8 || iss.find_first_of("#? \r\n\t\"<>") != std::string::npos) {
    throw ConfigError("configuration key [tokens] issuer: '" + iss + "' is not an https URL without query or fragment");
  }
  r.str("tokens.oidc_issuer", tokens.oidc_issuer);
  if (!tokens.oidc_issuer.empty() && !is_oidc_base(tokens.oidc_issuer)) {
    throw ConfigError("configuration key [tokens] oidc_issuer: '" + tokens.oidc_issuer +
                      "' is not an https URL (or http:// on a loopback host) without query, fragment or final /");
  }
  r.one_of("tokens.access_alg", tokens.access_alg, {"ES256", "EdDSA", "HS256"});
  r.integer("tokens.key_cache_seconds", tokens.key_cache_seconds, 0, 60);
  r.integer("tokens.refresh_reuse_seconds", tokens.refresh_reuse_seconds, 0, 300);
  if (!tokens.legacy_hs256() && keys.signing_kek.empty()) {
    throw ConfigError(
        "missing required configuration key [keys] signing_kek (svc-admin keygen prints one; it seals the "
        "access-token signing keys)");
  }
}

}  // namespace svc::config
