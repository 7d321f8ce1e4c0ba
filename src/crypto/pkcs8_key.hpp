#pragma once
// A P-256 private key from a PKCS#8 PEM file ("-----BEGIN PRIVATE KEY-----"),
// as Apple hands out the keys of Sign in with Apple (AuthKey_KEYID.p8), in
// the raw forms of crypto/signing_key.hpp's ES256 keys. Reentrant.

#include <optional>
#include <string_view>

#include "crypto/signing_key.hpp"

namespace svc::crypto {

// The ES256 key pair of `pem`; nullopt unless it is a PKCS#8 PEM of a P-256
// (prime256v1) key whose halves check (SigningKey::load_pair accepts them).
std::optional<SigningKeyMaterial> es256_from_pkcs8_pem(std::string_view pem);

}  // namespace svc::crypto
