#include "crypto/rsa_key.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <stdexcept>

#include "crypto/encoding.hpp"

namespace svc::crypto::rsa {
namespace {

bool is_rsa(EVP_PKEY* key) { return key && EVP_PKEY_is_a(key, "RSA") == 1 && EVP_PKEY_get_bits(key) >= kBits; }

std::string bn_param(EVP_PKEY* key, const char* name) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &raw) != 1) throw std::runtime_error("RSA key export failed");
  BnPtr bn(raw);
  std::string out(static_cast<std::size_t>(BN_num_bytes(bn.get())), '\0');
  BN_bn2bin(bn.get(), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

}  // namespace

PkeyPtr generate() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(kBits)));
  if (!key) throw std::runtime_error("RSA key generation failed");
  return key;
}

std::string private_der(EVP_PKEY* key) {
  unsigned char* out = nullptr;
  const int len = i2d_PrivateKey(key, &out);
  if (len <= 0) throw std::runtime_error("RSA key export failed");
  std::string der(reinterpret_cast<const char*>(out), static_cast<std::size_t>(len));
  OPENSSL_clear_free(out, static_cast<std::size_t>(len));
  return der;
}

std::string public_der(EVP_PKEY* key) {
  unsigned char* out = nullptr;
  const int len = i2d_PUBKEY(key, &out);
  if (len <= 0) throw std::runtime_error("RSA key export failed");
  std::string der(reinterpret_cast<const char*>(out), static_cast<std::size_t>(len));
  OPENSSL_free(out);
  return der;
}

PkeyPtr load_public(std::string_view der) {
  const unsigned char* p = byte_ptr(der);
  PkeyPtr key(d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size())));
  if (!is_rsa(key.get()) || p != byte_ptr(der) + der.size()) return nullptr;
  return key;
}

PkeyPtr load_pair(std::string_view private_der_bytes, std::string_view public_der_bytes) {
  const unsigned char* p = byte_ptr(private_der_bytes);
  PkeyPtr key(d2i_AutoPrivateKey(nullptr, &p, static_cast<long>(private_der_bytes.size())));
  if (!is_rsa(key.get())) return nullptr;
  if (!constant_time_equal(public_der(key.get()), public_der_bytes)) return nullptr;
  return key;
}

std::string modulus(EVP_PKEY* key) { return bn_param(key, OSSL_PKEY_PARAM_RSA_N); }
std::string exponent(EVP_PKEY* key) { return bn_param(key, OSSL_PKEY_PARAM_RSA_E); }

}  // namespace svc::crypto::rsa
