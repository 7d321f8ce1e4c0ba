#include "crypto/sealed_id.hpp"

#include <sodium.h>

#include <stdexcept>

#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"

namespace svc::crypto {
namespace {

constexpr std::size_t kNonceBytes = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t kTagBytes = crypto_aead_xchacha20poly1305_ietf_ABYTES;
// Real tokens are ~90 characters; refuse to decode anything absurd.
constexpr std::size_t kMaxTokenChars = 1024;

// Distinct associated data per purpose: a user-id token never opens as a
// customer id, even under the same key. The "v1" leaves room for a format
// change without ambiguity.
std::string_view associated_data(IdPurpose purpose) {
  switch (purpose) {
    case IdPurpose::User:
      return "svc:user-id:v1";
    case IdPurpose::Customer:
      return "svc:customer-id:v1";
  }
  throw std::invalid_argument("unknown IdPurpose");
}

std::optional<OpenedId> parse_plaintext(std::string_view json) {
  const std::optional<rapidjson::Document> doc = parse_json_object(json);
  if (!doc) return std::nullopt;
  const auto uid = doc->FindMember("uid");
  const auto exp = doc->FindMember("exp");
  if (uid == doc->MemberEnd() || !uid->value.IsInt64() || exp == doc->MemberEnd() || !exp->value.IsInt64()) {
    return std::nullopt;
  }
  return OpenedId{uid->value.GetInt64(), exp->value.GetInt64()};
}

}  // namespace

std::string seal_id(long long id, long long exp, IdPurpose purpose, std::string_view key) {
  if (key.size() != crypto_aead_xchacha20poly1305_ietf_KEYBYTES) {
    throw std::invalid_argument("seal_id: key must be 32 bytes");
  }
  const std::string plain = "{\"uid\":" + std::to_string(id) + ",\"exp\":" + std::to_string(exp) + "}";
  const std::string_view ad = associated_data(purpose);
  std::string out = random_bytes(kNonceBytes);
  out.resize(kNonceBytes + plain.size() + kTagBytes);
  auto* ct = reinterpret_cast<unsigned char*>(out.data()) + kNonceBytes;
  unsigned long long ct_len = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(ct, &ct_len, byte_ptr(plain), plain.size(), byte_ptr(ad), ad.size(),
                                             nullptr, byte_ptr(out), byte_ptr(key));
  return base64url_encode(out);
}

bool has_sealed_id_shape(std::string_view token) {
  if (token.size() > kMaxTokenChars) return false;
  const std::optional<std::string> raw = base64url_decode(token);
  return raw && raw->size() >= kNonceBytes + kTagBytes;
}

std::optional<OpenedId> open_id(std::string_view token, IdPurpose purpose, std::string_view key) {
  if (key.size() != crypto_aead_xchacha20poly1305_ietf_KEYBYTES || token.size() > kMaxTokenChars) {
    return std::nullopt;
  }
  const std::optional<std::string> raw = base64url_decode(token);
  if (!raw || raw->size() < kNonceBytes + kTagBytes) return std::nullopt;
  const std::string_view nonce = std::string_view(*raw).substr(0, kNonceBytes);
  const std::string_view ct = std::string_view(*raw).substr(kNonceBytes);
  const std::string_view ad = associated_data(purpose);
  std::string plain(ct.size() - kTagBytes, '\0');
  unsigned long long plain_len = 0;
  // The tag is checked before anything is written to `plain`.
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(reinterpret_cast<unsigned char*>(plain.data()), &plain_len, nullptr,
                                                 byte_ptr(ct), ct.size(), byte_ptr(ad), ad.size(), byte_ptr(nonce),
                                                 byte_ptr(key)) != 0) {
    return std::nullopt;
  }
  plain.resize(static_cast<std::size_t>(plain_len));
  return parse_plaintext(plain);
}

}  // namespace svc::crypto
