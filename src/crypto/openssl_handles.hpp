#pragma once
// Owning handles for OpenSSL objects: std::unique_ptr with the matching
// OpenSSL free function, so every early return releases what was allocated.
// For crypto/*.cpp only (it pulls in the OpenSSL headers).

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>

namespace svc::crypto {

// A deleter that calls the OpenSSL free function Fn.
template <auto Fn>
struct OpensslFree {
  template <class T>
  void operator()(T* p) const {
    Fn(p);
  }
};

using PkeyPtr = std::unique_ptr<EVP_PKEY, OpensslFree<EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, OpensslFree<EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, OpensslFree<EVP_MD_CTX_free>>;
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, OpensslFree<EVP_CIPHER_CTX_free>>;
// BN_clear_free: a BIGNUM here may hold a private scalar.
using BnPtr = std::unique_ptr<BIGNUM, OpensslFree<BN_clear_free>>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, OpensslFree<ECDSA_SIG_free>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, OpensslFree<OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, OpensslFree<OSSL_PARAM_free>>;

}  // namespace svc::crypto
