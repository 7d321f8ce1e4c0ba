#pragma once
// JSON Web Tokens, HS256 only (RFC 7519 / RFC 7515 compact form).
//
// Wire format made by jwt_sign:
//   base64url(header) "." base64url(payload) "." base64url(HMAC-SHA256(
//       secret, base64url(header) "." base64url(payload)))
// base64url without '=' padding; header {"alg":"HS256","typ":"JWT","kid":K};
// payload members in this order: sub, typ, aud, tbl (omitted if empty), app
// (omitted if 0), ver, iat, exp, jti, pwf (omitted if empty), auth_time
// (omitted if 0), amr (an array of strings, omitted if empty), sid (omitted
// if empty), gen (omitted if 0). `aud` is
// audience_of(typ): every kind of token names its own audience, so a
// consumer that checks `aud` (docs/api.md "Verifying access tokens") cannot
// take a refresh or reset token for an access token.
//
// Pure functions; thread-safe.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svc::crypto {

// secret: raw bytes; REQUIRES non-empty (32 random bytes recommended).
struct JwtKey {
  std::string kid;
  std::string secret;
};

// Verify accepts current and previous keys (matched by kid, current first);
// sign uses current. Keys with an empty secret never verify.
struct JwtKeyRing {
  JwtKey current;
  std::vector<JwtKey> previous;
};

// sub: user id as a decimal string; typ: "access" | "refresh" | "reset";
// aud: filled in by jwt_verify (jwt_sign writes audience_of(typ), ignoring it);
// tbl: auth table; app: 0 = absent; ver: the user's token_version;
// iat/exp: unix seconds; pwf: password_fingerprint(), empty = absent.
struct Claims {
  std::string sub;
  std::string typ;
  std::string aud;
  std::string tbl;
  long long app = 0;
  long long ver = 0;
  long long iat = 0;
  long long exp = 0;
  std::string jti;
  std::string pwf;
  // Refresh tokens only (auth/tokens/tokens.cpp): how the session began, carried
  // into every access token it yields. 0 / empty = absent.
  long long auth_time = 0;
  std::vector<std::string> amr;
  // The server-side session (auth/session/sessions.hpp) and, in a refresh
  // token, which of its rotations issued it. "" / 0 = absent.
  std::string sid;
  long long gen = 0;
  // Refresh tokens since issue 52: the user's email_verified when the token
  // was issued, which the next rotation checks in its own statement
  // (auth/tokens/tokens.cpp refresh_session). nullopt = absent (older token).
  std::optional<bool> email_verified;
  // Refresh tokens since issue 52: true in one of an OAuth client's session
  // (signed at its token endpoint), which only that endpoint refreshes.
  bool oauth_grant = false;
};

enum class JwtError {
  None,
  Malformed,     // not three non-empty base64url parts, bad JSON, > 8 KiB, ...
  BadAlgorithm,  // header alg is anything but exactly "HS256" (incl. "none")
  UnknownKey,    // kid absent or not in the key ring
  BadSignature,
  WrongType,      // claims.typ != expected_typ (claims filled in)
  WrongAudience,  // aud absent or not audience_of(expected_typ) (claims filled in;
                  // aud is "" for a token signed before audiences existed)
  Expired,        // now >= exp (claims filled in)
};

struct JwtResult {
  JwtError error = JwtError::Malformed;
  Claims claims;  // meaningful for None, WrongType and Expired only
  bool ok() const { return error == JwtError::None; }
};

// The `aud` of a token of kind `typ`: "svc-" + typ ("svc-access",
// "svc-refresh", "svc-reset").
std::string audience_of(std::string_view typ);

// The ring whose every key (current and previous, kids unchanged) is
// HMAC-SHA256(secret, label): a separate key per token kind derived from the
// configured ones, so rotating [keys] jwt rotates it too.
JwtKeyRing derive_key_ring(const JwtKeyRing& keys, std::string_view label);

// Signs with `key`. An empty claims.jti is replaced by 16 random bytes,
// base64url-encoded. Throws std::invalid_argument if key.secret is empty.
std::string jwt_sign(const Claims& claims, const JwtKey& key);

// Checks, in this order: size <= 8 KiB and three non-empty parts; header
// JSON; alg == "HS256"; kid known; signature (constant-time) over the exact
// bytes received; only then the payload: sub and typ strings, iat and exp
// integers, aud/tbl/jti/pwf strings and app/ver integers if present
// (Malformed otherwise); typ == expected_typ; aud == audience_of(expected_typ);
// now < exp. Duplicate JSON member names
// are Malformed. Never throws.
JwtResult jwt_verify(std::string_view token, const JwtKeyRing& keys, std::string_view expected_typ, long long now);

}  // namespace svc::crypto
