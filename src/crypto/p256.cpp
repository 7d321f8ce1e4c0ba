// One P-256 implementation for VAPID and Web Push. OpenSSL 3's provider API
// (EVP_PKEY_fromdata) builds keys from raw bytes; it does not check them, so
// every loader ends with EVP_PKEY_check / EVP_PKEY_public_check.

#include "crypto/p256.hpp"

#include <openssl/core_names.h>

#include <stdexcept>
#include <utility>

#include "crypto/encoding.hpp"

namespace svc::crypto::p256 {
namespace {

// Builds an EC key from params; `selection` says which halves are present.
PkeyPtr pkey_from_params(OSSL_PARAM* params, int selection) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 || EVP_PKEY_fromdata(ctx.get(), &raw, selection, params) <= 0) {
    return nullptr;
  }
  PkeyPtr key(raw);
  // Point on the curve, scalar in range and, for a pair, pub == priv * G.
  PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check) return nullptr;
  const int ok = selection == EVP_PKEY_PUBLIC_KEY ? EVP_PKEY_public_check(check.get()) : EVP_PKEY_check(check.get());
  return ok > 0 ? std::move(key) : nullptr;
}

// The group and the public point, the part both loaders share.
bool push_group_and_point(OSSL_PARAM_BLD* bld, std::string_view point) {
  return OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) &&
         OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
}

}  // namespace

bool is_uncompressed_point(std::string_view point) {
  return point.size() == kPointSize && static_cast<unsigned char>(point[0]) == 0x04;
}

PkeyPtr load_public(std::string_view point) {
  if (!is_uncompressed_point(point)) return nullptr;
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld || !push_group_and_point(bld.get(), point)) return nullptr;
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  return params ? pkey_from_params(params.get(), EVP_PKEY_PUBLIC_KEY) : nullptr;
}

PkeyPtr load_keypair(std::string_view scalar, std::string_view point) {
  if (scalar.size() != kScalarSize || !is_uncompressed_point(point)) return nullptr;
  BnPtr d(BN_bin2bn(byte_ptr(scalar), static_cast<int>(scalar.size()), nullptr));
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!d || !bld || !push_group_and_point(bld.get(), point) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, d.get())) {
    return nullptr;
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  return params ? pkey_from_params(params.get(), EVP_PKEY_KEYPAIR) : nullptr;
}

bool ecdh(EVP_PKEY* own, EVP_PKEY* peer, std::span<unsigned char, kScalarSize> out) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own, nullptr));
  std::size_t len = out.size();
  return ctx && EVP_PKEY_derive_init(ctx.get()) > 0 && EVP_PKEY_derive_set_peer(ctx.get(), peer) > 0 &&
         EVP_PKEY_derive(ctx.get(), out.data(), &len) > 0 && len == kScalarSize;
}

PkeyPtr generate() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) throw std::runtime_error("P-256 key generation failed");
  return key;
}

std::string public_point(EVP_PKEY* key) {
  std::string point(kPointSize, '\0');
  std::size_t len = 0;
  if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, reinterpret_cast<unsigned char*>(point.data()),
                                      point.size(), &len) != 1 ||
      len != kPointSize || !is_uncompressed_point(point)) {
    throw std::runtime_error("P-256 key export failed");
  }
  return point;
}

std::string private_scalar(EVP_PKEY* key) {
  BIGNUM* raw_d = nullptr;
  if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &raw_d) != 1) {
    throw std::runtime_error("P-256 key export failed");
  }
  BnPtr d(raw_d);
  std::string scalar(kScalarSize, '\0');
  if (BN_bn2binpad(d.get(), reinterpret_cast<unsigned char*>(scalar.data()), static_cast<int>(kScalarSize)) !=
      static_cast<int>(kScalarSize)) {
    throw std::runtime_error("P-256 key export failed");
  }
  return scalar;
}

}  // namespace svc::crypto::p256
