#pragma once
// COSE public keys (RFC 9052/9053, RFC 8812) as WebAuthn credentials carry
// them, and the signatures they make. Three algorithms: ES256 (-7, EC2 P-256,
// ECDSA over SHA-256 with a DER signature as WebAuthn sends it), EdDSA (-8,
// OKP Ed25519) and RS256 (-257, RSA PKCS#1 v1.5 over SHA-256, modulus of
// 2048 bits or more). Keys are parsed with libcbor and checked by OpenSSL.
//
// Pure and reentrant; inputs are untrusted bytes.

#include <optional>
#include <string_view>

namespace svc::crypto::cose {

inline constexpr int kES256 = -7;
inline constexpr int kEdDSA = -8;
inline constexpr int kRS256 = -257;

// The algorithm of a COSE_Key (one CBOR map, nothing after it) when it is one
// of the three, its kty/crv match it, and OpenSSL accepts its parameters;
// nullopt otherwise.
std::optional<int> key_algorithm(std::string_view cose_key);

// Whether `signature` over `message` verifies with the key. False for a key
// key_algorithm() refuses.
bool verify(std::string_view cose_key, std::string_view message, std::string_view signature);

}  // namespace svc::crypto::cose
