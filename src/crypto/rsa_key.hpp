#pragma once
// RSA keys for RS256 (RFC 7518 3.3) through OpenSSL 3: generation, the DER
// forms svc_signing_keys keeps, and the JWK members n and e. Made for
// OpenID Connect ID tokens, which many relying parties accept only as
// RS256. Pure functions; thread-safe.

#include <string>
#include <string_view>

#include "crypto/openssl_handles.hpp"

namespace svc::crypto::rsa {

// The modulus size of keys svc makes (NIST SP 800-57: 2048 bits to 2030).
inline constexpr int kBits = 2048;

// A fresh 2048-bit key with e = 65537. Throws std::runtime_error only if
// OpenSSL cannot make one.
PkeyPtr generate();
// PKCS#8 DER of the private key; SubjectPublicKeyInfo DER of the public one.
std::string private_der(EVP_PKEY* key);
std::string public_der(EVP_PKEY* key);
// nullptr unless `der` is an RSA SubjectPublicKeyInfo of at least kBits bits.
PkeyPtr load_public(std::string_view der);
// nullptr unless `private_der` is an RSA PKCS#8 key whose public half is
// exactly `public_der`.
PkeyPtr load_pair(std::string_view private_der, std::string_view public_der);
// The big-endian unsigned bytes of the modulus (n) or public exponent (e).
std::string modulus(EVP_PKEY* key);
std::string exponent(EVP_PKEY* key);

}  // namespace svc::crypto::rsa
