#include "crypto/pkcs8_key.hpp"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <stdexcept>
#include <string>

#include "crypto/p256.hpp"

namespace svc::crypto {

std::optional<SigningKeyMaterial> es256_from_pkcs8_pem(std::string_view pem) {
  if (pem.empty() || pem.size() > 16384) return std::nullopt;
  // The file as read, trimmed of its last line end, which PEM wants.
  const std::string text = std::string(pem) + (pem.back() == '\n' ? "" : "\n");
  std::unique_ptr<BIO, OpensslFree<BIO_free>> bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  if (!bio) return std::nullopt;
  // No passphrase callback: an encrypted key is refused, never prompted for.
  PkeyPtr key(PEM_read_bio_PrivateKey(
      bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr));
  if (!key || EVP_PKEY_is_a(key.get(), "EC") != 1) return std::nullopt;
  char group[64] = {0};
  std::size_t len = 0;
  if (EVP_PKEY_get_utf8_string_param(key.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &len) != 1 ||
      std::string_view(group, len) != "prime256v1") {
    return std::nullopt;
  }
  SigningKeyMaterial out;
  out.alg = SigningAlg::kES256;
  try {
    out.private_key = p256::private_scalar(key.get());
    out.public_key = p256::public_point(key.get());
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  if (!SigningKey::load_pair("", SigningAlg::kES256, out.private_key, out.public_key)) return std::nullopt;
  return out;
}

}  // namespace svc::crypto
