#include "upstream/apple_secret.hpp"

#include <sodium.h>

#include <stdexcept>

#include "crypto/encoding.hpp"
#include "crypto/pkcs8_key.hpp"
#include "http/json.hpp"

namespace svc::upstream {

bool valid_apple_id(std::string_view id) {
  if (id.empty() || id.size() > 32) return false;
  for (char c : id) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

std::string apple_client_secret(std::string_view p8_pem, const std::string& team_id, const std::string& key_id,
                                const std::string& client_id, long long now) {
  auto material = crypto::es256_from_pkcs8_pem(p8_pem);
  auto key = material ? crypto::SigningKey::load_pair(key_id, crypto::SigningAlg::kES256, material->private_key,
                                                      material->public_key)
                      : std::nullopt;
  if (material) sodium_memzero(material->private_key.data(), material->private_key.size());
  if (!key) throw std::invalid_argument("not a P-256 key in PKCS#8 PEM (Apple's .p8 file)");
  http::JsonWriter header;
  header.open().kv("alg", "ES256").kv("kid", key_id).close();
  http::JsonWriter claims;
  claims.open().kv("iss", team_id).kv("iat", now).kv("exp", now + kAppleSecretSeconds);
  claims.kv("aud", kAppleAudience).kv("sub", client_id).close();
  const std::string input = crypto::base64url_encode(header.str()) + "." + crypto::base64url_encode(claims.str());
  return input + "." + crypto::base64url_encode(key->sign(input));
}

}  // namespace svc::upstream
