#pragma once
// P-256 (prime256v1) keys as VAPID signing (vapid.cpp) and Web Push
// encryption (webpush.cpp) use them, in the raw forms the web uses: a private
// key is the 32-byte big-endian scalar, a public key the 65-byte uncompressed
// point 0x04 || X || Y. Every key loaded here is checked by OpenSSL before it
// is returned, so callers never hold a key that is off the curve or a pair
// whose halves do not match.
//
// For crypto/*.cpp only (it pulls in the OpenSSL headers). Thread/fork
// safety: every function is reentrant; no state beyond OpenSSL's own.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "crypto/openssl_handles.hpp"

namespace svc::crypto::p256 {

inline constexpr std::size_t kPointSize = 65;   // uncompressed public point
inline constexpr std::size_t kScalarSize = 32;  // private scalar, and the ECDH secret

// 65 bytes starting with 0x04 (not yet checked to be on the curve).
bool is_uncompressed_point(std::string_view point);

// A public key from its raw point; nullptr unless the point is uncompressed
// and on the curve.
PkeyPtr load_public(std::string_view point);

// A key pair from its raw halves; nullptr unless the scalar is 32 bytes and
// in range, the point is uncompressed, and point == scalar * G.
PkeyPtr load_keypair(std::string_view scalar, std::string_view point);

// ECDH: writes the 32-byte shared secret (the X coordinate of own * peer) to
// `out`. REQUIRES: own holds a private key. False when OpenSSL refuses.
bool ecdh(EVP_PKEY* own, EVP_PKEY* peer, std::span<unsigned char, kScalarSize> out);

// A fresh random key pair. Throws std::runtime_error only if OpenSSL cannot
// generate one (out of memory, broken RNG).
PkeyPtr generate();

// The raw halves of a key generate() or load_keypair() returned. Throw
// std::runtime_error if OpenSSL cannot export them.
std::string public_point(EVP_PKEY* key);
std::string private_scalar(EVP_PKEY* key);

}  // namespace svc::crypto::p256
