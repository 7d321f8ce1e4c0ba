#pragma once
// Access tokens in the JWT profile of RFC 9068, signed with an asymmetric
// key (crypto/signing_key.hpp) so any backend can verify them with the
// published JWKS and none can forge one.
//
// Wire format made by sign_access_token:
//   header  {"alg":"ES256"|"EdDSA","typ":"at+jwt","kid":K}
//   payload {"iss","sub","aud","client_id" (omitted if empty),"scope" (omitted
//            if empty),"iat","exp",
//            "jti","auth_time","amr":[…],"tbl","ver","email_verified",
//            "sid" (omitted if empty)}
// compact form, base64url without padding.
//
// Pure functions; thread-safe.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/signing_key.hpp"

namespace svc::crypto {

struct AccessClaims {
  std::string iss;
  std::string sub;        // user id, decimal
  std::string aud;        // the site's audience (or the service's own)
  std::string client_id;  // appID as a string, or an OAuth client's client_id; "" = absent
  // RFC 9068 2.2.3: the scopes an OAuth client was granted (space-separated);
  // "" = absent (a token of the site API).
  std::string scope;
  long long iat = 0;
  long long exp = 0;
  std::string jti;  // "" at signing = 16 random bytes, base64url
  long long auth_time = 0;
  std::vector<std::string> amr;  // RFC 8176 method references, e.g. {"pwd"}
  std::string tbl;
  long long ver = 0;
  // The user's address was proven (issue 26); optional when verifying (absent = false).
  bool email_verified = false;
  // The server-side session the token belongs to; optional ("" = absent).
  std::string sid;
};

enum class AccessTokenError {
  None,
  Malformed,     // not three base64url parts, bad JSON, a claim of the wrong type, > 8 KiB, ...
  BadAlgorithm,  // header alg differs from the alg of the key its kid names (incl. "none", "HS256")
  UnknownKey,    // kid absent or not in the key set
  BadSignature,
  WrongType,      // header typ is not "at+jwt"
  WrongIssuer,    // iss differs from the expected issuer (claims filled in)
  WrongAudience,  // aud differs from the expected audience (claims filled in)
  Expired,        // now >= exp (claims filled in)
};

struct AccessTokenResult {
  AccessTokenError error = AccessTokenError::Malformed;
  AccessClaims claims;  // meaningful for None, WrongIssuer, WrongAudience and Expired
  bool ok() const { return error == AccessTokenError::None; }
};

// Signs with `key`. REQUIRES key.can_sign() (else std::logic_error).
std::string sign_access_token(const AccessClaims& claims, const SigningKey& key);

// Checks, in this order: size and three non-empty parts; header JSON without
// "crit"; kid names a key of `keys`; alg == that key's alg (the algorithm
// comes from the key, never from the token); typ == "at+jwt"; the signature
// over the exact bytes received; only then the payload: every claim present
// with its type (amr an array of strings; client_id and scope optional); iss ==
// issuer; aud == audience (a string, or an array holding it); now < exp.
// Duplicate member names are Malformed. Never throws.
AccessTokenResult verify_access_token(std::string_view token, std::span<const SigningKey> keys, std::string_view issuer,
                                      std::string_view audience, long long now);

}  // namespace svc::crypto
