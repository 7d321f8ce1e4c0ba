#pragma once
// [keys]: the secrets that sign, seal and key HMACs (all base64url in the
// file, raw bytes here), and [tokens]: how access tokens are issued and
// signed. One family because [tokens] decides whether [keys] signing_kek is
// required. Every key is documented in docs/configuration.md with its
// default. The structs hold secrets: never log them.

#include <string>

#include "crypto/jwt.hpp"

namespace svc::config {

class Reader;

struct KeySettings {
  crypto::JwtKeyRing jwt;           // [keys] jwt_kid, jwt_secret, jwt_previous
  std::string id_key;               // 32 raw bytes: sealed user/customer ids
  std::string sms_key;              // HMAC key for stored SMS codes
  std::string reset_key;            // HMAC key for password fingerprints in reset tokens
  std::string legacy_password_key;  // the PHP openssl_encrypt key of legacy passwords ("" = none)
  // 32 raw bytes: seals the private halves of the access-token signing keys
  // in svc_signing_keys; "" only with [tokens] access_alg = HS256.
  std::string signing_kek;
  // 32 raw bytes: seals TOTP secrets in svc_mfa_factors and keys the hashes
  // of recovery codes; "" = the second factor cannot be set up.
  std::string mfa_key;
  // 32 raw bytes: the HMAC key of bounce tags (VERP) and one-click
  // unsubscribe tokens; "" only when [smtp] bounce_address and
  // unsubscribe_url are both unset.
  std::string mail_key;
  // 32 raw bytes: seals the signing secrets of webhook endpoints in
  // svc_webhook_endpoints; "" = `svc-admin webhook add` refuses and
  // svc-sender delivers no webhook.
  std::string webhook_key;
};

// [tokens]: access tokens (docs/decisions.md "Access tokens any backend can
// verify"). Refresh and reset tokens keep [keys] jwt.
struct TokenSettings {
  // The `iss` of every access token: an https URL without query or fragment.
  std::string issuer = "https://svc.localhost";
  // Where the OpenID Connect issuers live (issue 39): site N's issuer is
  // <oidc_issuer>/oidc/N. "" = `issuer`. An https URL, or http:// on a
  // loopback host (127.0.0.1, [::1], localhost) for a development stack,
  // whose browsers and relying parties must reach it.
  std::string oidc_issuer;
  const std::string& oidc_base() const { return oidc_issuer.empty() ? issuer : oidc_issuer; }
  // "ES256" (default) | "EdDSA": the algorithm of the first key
  // `svc-admin migrate` makes and of `signing-keys rotate` without --alg;
  // access tokens are signed by the newest active key of svc_signing_keys
  // whatever this says. "HS256": the legacy format signed with [keys] jwt
  // (svc-admin doctor fails it).
  std::string access_alg = "ES256";
  bool legacy_hs256() const { return access_alg == "HS256"; }
  // How long a worker reuses the key set it read from svc_signing_keys.
  int key_cache_seconds = 5;
  // How long after a refresh token rotated the one before it still gets a
  // valid pair (two tabs refreshing at once); later it is a reuse, which
  // revokes the session (docs/decisions.md "Sessions").
  int refresh_reuse_seconds = 10;
};

// Each throws ConfigError naming the first bad or missing key. [keys]
// mail_key is checked by parse_config, once [smtp] was read.
void read_keys(Reader& r, KeySettings& keys);
// REQUIRES: read_keys ran (the asymmetric algorithms need signing_kek).
void read_tokens(Reader& r, TokenSettings& tokens, const KeySettings& keys);

}  // namespace svc::config
