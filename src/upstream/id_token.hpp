#pragma once
// An upstream provider's ID token checked (OpenID Connect Core 3.1.3.7):
// JWS signature by a key of the provider's JWKS (RS256, ES256 or EdDSA,
// the header's alg that of the key), iss the provider's issuer, aud holding
// our client id (azp it when several), exp in the future, nonce the flow's.
// The JWKS is cached per URL in the worker for an hour and read again when
// a token names a kid it does not hold.

#include <optional>
#include <string>

#include "config/config.hpp"
#include "db/upstream_repo.hpp"

namespace svc::upstream {

// What svc keeps of an upstream sign-in: the provider's subject and the
// address it gave, and whether it asserts the address verified.
struct UpstreamIdentity {
  std::string subject;
  std::string email;
  bool email_verified = false;
  std::string given_name;
  std::string family_name;
};

enum class IdTokenError { kNone, kMalformed, kUnknownKey, kBadSignature, kIssuer, kAudience, kExpired, kNonce, kJwks };

struct IdTokenResult {
  IdTokenError error = IdTokenError::kMalformed;
  UpstreamIdentity identity;
};

IdTokenResult verify_id_token(const config::Config& config, const db::UpstreamProvider& provider,
                              const std::string& token, const std::string& nonce, long long now);

// A short English reason for the log and the error page.
const char* describe(IdTokenError error);

}  // namespace svc::upstream
