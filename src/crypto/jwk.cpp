#include "crypto/jwk.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>

#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"
#include "crypto/openssl_handles.hpp"
#include "crypto/rsa_key.hpp"

namespace svc::crypto {
namespace {

std::optional<std::string> member(const rapidjson::Value& jwk, const char* name) {
  auto it = jwk.FindMember(name);
  if (it == jwk.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(json_view(it->value));
}

std::optional<std::string> decoded(const rapidjson::Value& jwk, const char* name) {
  auto text = member(jwk, name);
  return text ? base64url_decode(*text) : std::nullopt;
}

// The SubjectPublicKeyInfo DER of the RSA key (n, e); "" when OpenSSL refuses.
std::string rsa_der(const std::string& n, const std::string& e) {
  BnPtr bn_n(BN_bin2bn(byte_ptr(n), static_cast<int>(n.size()), nullptr));
  BnPtr bn_e(BN_bin2bn(byte_ptr(e), static_cast<int>(e.size()), nullptr));
  ParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bn_n || !bn_e || !bld || !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get())) {
    return "";
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return "";
  }
  PkeyPtr key(raw);
  return rsa::public_der(key.get());
}

}  // namespace

std::optional<SigningKey> key_of_jwk(const rapidjson::Value& jwk) {
  if (!jwk.IsObject()) return std::nullopt;
  const auto kty = member(jwk, "kty");
  const std::string kid = member(jwk, "kid").value_or("");
  if (!kty || member(jwk, "use").value_or("sig") != "sig") return std::nullopt;
  if (*kty == "RSA") {
    auto n = decoded(jwk, "n");
    auto e = decoded(jwk, "e");
    if (!n || !e || n->empty() || e->empty() || n->size() > 1024 || e->size() > 8) return std::nullopt;
    const std::string der = rsa_der(*n, *e);
    if (der.empty()) return std::nullopt;
    return SigningKey::load_public(kid, SigningAlg::kRS256, der);
  }
  const std::string crv = member(jwk, "crv").value_or("");
  if (*kty == "EC" && crv == "P-256") {
    auto x = decoded(jwk, "x");
    auto y = decoded(jwk, "y");
    if (!x || !y || x->size() != 32 || y->size() != 32) return std::nullopt;
    return SigningKey::load_public(kid, SigningAlg::kES256, "\x04" + *x + *y);
  }
  if (*kty == "OKP" && crv == "Ed25519") {
    auto x = decoded(jwk, "x");
    if (!x || x->size() != 32) return std::nullopt;
    return SigningKey::load_public(kid, SigningAlg::kEdDSA, *x);
  }
  return std::nullopt;
}

}  // namespace svc::crypto
