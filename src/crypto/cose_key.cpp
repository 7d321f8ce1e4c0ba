// COSE key labels (RFC 9052 §7.1, RFC 9053 §7): 1 kty, 3 alg; EC2/OKP -1 crv,
// -2 x, -3 y; RSA -1 n, -2 e. kty: 1 OKP, 2 EC2, 3 RSA; crv: 1 P-256, 6 Ed25519.

#include "crypto/cose_key.hpp"

#include <openssl/core_names.h>

#include <string>

#include "crypto/cbor_item.hpp"
#include "crypto/encoding.hpp"
#include "crypto/openssl_handles.hpp"
#include "crypto/p256.hpp"

namespace svc::crypto::cose {
namespace {

struct Loaded {
  int alg = 0;
  PkeyPtr key;
};

PkeyPtr ec2_key(cbor_item_t* map) {
  auto x = cbor::bytes_of(cbor::member(map, std::int64_t{-2}));
  auto y = cbor::bytes_of(cbor::member(map, std::int64_t{-3}));
  if (cbor::int_of(cbor::member(map, std::int64_t{-1})) != 1 || !x || !y || x->size() != 32 || y->size() != 32) {
    return nullptr;
  }
  return p256::load_public("\x04" + *x + *y);
}

PkeyPtr okp_key(cbor_item_t* map) {
  auto x = cbor::bytes_of(cbor::member(map, std::int64_t{-2}));
  if (cbor::int_of(cbor::member(map, std::int64_t{-1})) != 6 || !x || x->size() != 32) return nullptr;
  return PkeyPtr(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, byte_ptr(*x), x->size()));
}

PkeyPtr rsa_key(cbor_item_t* map) {
  auto n = cbor::bytes_of(cbor::member(map, std::int64_t{-1}));
  auto e = cbor::bytes_of(cbor::member(map, std::int64_t{-2}));
  if (!n || !e || n->empty() || e->empty() || n->size() > 1024 || e->size() > 8) return nullptr;
  BnPtr bn_n(BN_bin2bn(byte_ptr(*n), static_cast<int>(n->size()), nullptr));
  BnPtr bn_e(BN_bin2bn(byte_ptr(*e), static_cast<int>(e->size()), nullptr));
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bn_n || !bn_e || !bld || BN_num_bits(bn_n.get()) < 2048 ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get())) {
    return nullptr;
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return nullptr;
  }
  return PkeyPtr(raw);
}

std::optional<Loaded> load(std::string_view cose_key) {
  cbor::Loaded item = cbor::load_prefix(cose_key);
  if (!item.item || item.read != cose_key.size()) return std::nullopt;
  cbor_item_t* map = item.item.get();
  auto kty = cbor::int_of(cbor::member(map, std::int64_t{1}));
  auto alg = cbor::int_of(cbor::member(map, std::int64_t{3}));
  if (!kty || !alg) return std::nullopt;
  PkeyPtr key;
  if (*alg == kES256 && *kty == 2) key = ec2_key(map);
  if (*alg == kEdDSA && *kty == 1) key = okp_key(map);
  if (*alg == kRS256 && *kty == 3) key = rsa_key(map);
  if (!key) return std::nullopt;
  return Loaded{static_cast<int>(*alg), std::move(key)};
}

}  // namespace

std::optional<int> key_algorithm(std::string_view cose_key) {
  auto loaded = load(cose_key);
  return loaded ? std::optional<int>(loaded->alg) : std::nullopt;
}

bool verify(std::string_view cose_key, std::string_view message, std::string_view signature) {
  auto loaded = load(cose_key);
  if (!loaded) return false;
  MdCtxPtr md(EVP_MD_CTX_new());
  // Ed25519 is "pure": no digest of its own, one-shot only.
  const EVP_MD* digest = loaded->alg == kEdDSA ? nullptr : EVP_sha256();
  if (!md || EVP_DigestVerifyInit(md.get(), nullptr, digest, nullptr, loaded->key.get()) <= 0) return false;
  return EVP_DigestVerify(md.get(), byte_ptr(signature), signature.size(), byte_ptr(message), message.size()) == 1;
}

}  // namespace svc::crypto::cose
