#pragma once
// OpenID Connect ID tokens (Core 1.0 section 2): JWS compact, signed with
// the key set's current key of the client's algorithm (RS256 by default,
// ES256 or EdDSA per client: auth/tokens/signing_keys.hpp KeySet::current),
// header {"alg":ALG,"typ":"JWT","kid":K}.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "crypto/signing_key.hpp"
#include "db/user_repo.hpp"

namespace svc::oidc {

struct IdClaims {
  std::string iss;
  std::string sub;
  std::string aud;  // the client_id
  long long iat = 0;
  long long exp = 0;
  long long auth_time = 0;
  std::string nonce;  // "" = absent
  std::vector<std::string> amr;
  std::string at_hash;  // "" = absent
  std::string sid;
};

// at_hash of an access token (Core 3.1.3.6): base64url of the left half of
// its hash by the ID token's alg: SHA-256 for RS256 and ES256, SHA-512 for
// EdDSA (Ed25519; OpenID Connect issue 1125's resolution).
std::string at_hash(const std::string& access_token, crypto::SigningAlg alg);

// The claims above, then by scope: "email" adds email and email_verified,
// "profile" name, given_name and family_name (of `user`).
std::string sign_id_token(const IdClaims& claims, const db::User& user, const std::string& scope,
                          const crypto::SigningKey& key);

// What an id_token_hint names, when its signature is by one of `keys` (with
// the key's alg) and its iss is `issuer`; its exp is not checked (RP-
// Initiated Logout 1.0 section 2: an expired hint is still a hint).
struct IdTokenHint {
  std::string aud;
  std::string sub;
  std::string sid;
};
std::optional<IdTokenHint> read_id_token_hint(const std::string& token, std::span<const crypto::SigningKey> keys,
                                              const std::string& issuer);

// Whether the space-separated `scope` holds `name`.
bool has_scope(const std::string& scope, std::string_view name);

}  // namespace svc::oidc
