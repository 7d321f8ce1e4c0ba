#pragma once
// Public keys from a JSON Web Key (RFC 7517/7518/8037) of someone else's
// key set (an upstream identity provider's JWKS): RSA (n, e) for RS256, EC
// P-256 (x, y) for ES256, OKP Ed25519 (x) for EdDSA. Pure; thread-safe.

#include <rapidjson/document.h>

#include <optional>
#include <string>

#include "crypto/signing_key.hpp"

namespace svc::crypto {

// The key `jwk` describes, as a verify-only SigningKey with its kid; nullopt
// for a key of another type or curve, one marked for encryption ("use":
// "enc"), an RSA key under 2048 bits, or members that do not decode.
std::optional<SigningKey> key_of_jwk(const rapidjson::Value& jwk);

}  // namespace svc::crypto
