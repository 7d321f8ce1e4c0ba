#include "oidc/id_token.hpp"

#include <rapidjson/document.h>
#include <sodium.h>

#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"
#include "http/json.hpp"

namespace svc::oidc {
namespace {

constexpr size_t kMaxHintBytes = 8 * 1024;

std::string display_name(const db::User& user) {
  if (user.first_name.empty()) return user.last_name;
  if (user.last_name.empty()) return user.first_name;
  return user.first_name + " " + user.last_name;
}

}  // namespace

bool has_scope(const std::string& scope, std::string_view name) {
  size_t pos = 0;
  while (pos <= scope.size()) {
    const size_t end = std::min(scope.find(' ', pos), scope.size());
    if (std::string_view(scope).substr(pos, end - pos) == name) return true;
    pos = end + 1;
  }
  return false;
}

std::string at_hash(const std::string& access_token, crypto::SigningAlg alg) {
  if (alg != crypto::SigningAlg::kEdDSA) return crypto::base64url_encode(crypto::sha256(access_token).substr(0, 16));
  unsigned char digest[crypto_hash_sha512_BYTES];
  crypto_hash_sha512(digest, reinterpret_cast<const unsigned char*>(access_token.data()), access_token.size());
  return crypto::base64url_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest / 2));
}

std::string sign_id_token(const IdClaims& c, const db::User& user, const std::string& scope,
                          const crypto::SigningKey& key) {
  http::JsonWriter header;
  header.open().kv("alg", crypto::alg_name(key.alg())).kv("typ", "JWT").kv("kid", key.kid()).close();
  http::JsonWriter w;
  w.open().kv("iss", c.iss).kv("sub", c.sub).kv("aud", c.aud).kv("exp", c.exp).kv("iat", c.iat);
  w.kv("auth_time", c.auth_time);
  if (!c.nonce.empty()) w.kv("nonce", c.nonce);
  w.open_array("amr");
  for (const std::string& m : c.amr) w.s(m);
  w.close_array();
  if (!c.at_hash.empty()) w.kv("at_hash", c.at_hash);
  w.kv("sid", c.sid);
  if (has_scope(scope, "email")) w.kv("email", user.email).kv("email_verified", user.email_verified);
  if (has_scope(scope, "profile")) {
    w.kv("name", display_name(user)).kv("given_name", user.first_name).kv("family_name", user.last_name);
  }
  w.close();
  const std::string input = crypto::base64url_encode(header.str()) + "." + crypto::base64url_encode(w.str());
  return input + "." + crypto::base64url_encode(key.sign(input));
}

std::optional<IdTokenHint> read_id_token_hint(const std::string& token, std::span<const crypto::SigningKey> keys,
                                              const std::string& issuer) {
  if (token.size() > kMaxHintBytes) return std::nullopt;
  const size_t dot1 = token.find('.');
  const size_t dot2 = dot1 == std::string::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string::npos || token.find('.', dot2 + 1) != std::string::npos) return std::nullopt;
  const auto header_text = crypto::base64url_decode(std::string_view(token).substr(0, dot1));
  const auto header = header_text ? crypto::parse_json_object(*header_text) : std::nullopt;
  if (!header || header->HasMember("crit")) return std::nullopt;
  std::string kid;
  std::string alg;
  if (!crypto::read_string(*header, "kid", kid, crypto::Member::kRequired) ||
      !crypto::read_string(*header, "alg", alg, crypto::Member::kRequired)) {
    return std::nullopt;
  }
  const crypto::SigningKey* key = nullptr;
  for (const auto& k : keys) {
    if (k.kid() == kid && crypto::alg_name(k.alg()) == alg) key = &k;
  }
  const auto signature = crypto::base64url_decode(std::string_view(token).substr(dot2 + 1));
  if (!key || !signature || !key->verify(std::string_view(token).substr(0, dot2), *signature)) return std::nullopt;
  const auto payload_text = crypto::base64url_decode(std::string_view(token).substr(dot1 + 1, dot2 - dot1 - 1));
  const auto payload = payload_text ? crypto::parse_json_object(*payload_text) : std::nullopt;
  IdTokenHint hint;
  std::string iss;
  if (!payload || !crypto::read_string(*payload, "iss", iss, crypto::Member::kRequired) || iss != issuer ||
      !crypto::read_string(*payload, "aud", hint.aud, crypto::Member::kRequired) ||
      !crypto::read_string(*payload, "sub", hint.sub, crypto::Member::kRequired) ||
      !crypto::read_string(*payload, "sid", hint.sid)) {
    return std::nullopt;
  }
  return hint;
}

}  // namespace svc::oidc
