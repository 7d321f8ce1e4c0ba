#pragma once

#include <string>

#include "auth/tokens/access_tokens.hpp"
#include "core/context.hpp"
#include "crypto/jwt.hpp"
#include "db/user_repo.hpp"
#include "http/json.hpp"
#include "http/response.hpp"

namespace svc::auth {

struct TokenPair {
  std::string access_token;
  std::string refresh_token;
  // A sign-in's account token (auth/tokens/access_tokens.hpp issue_account_token);
  // "" in a refresh reply: the account routes want a recent sign-in anyway.
  std::string account_token;
};

// A signed-in user and the tokens just issued to them (login, sign-up).
struct Session {
  db::User user;
  TokenPair tokens;
};

// Signs a fresh access token (auth/tokens/access_tokens.hpp, [auth] access_ttl)
// and refresh JWT (typ "refresh", [auth] refresh_ttl, HS256 with [keys]
// jwt) for the user of `table`, both carrying the user's token_version so a
// password reset revokes earlier refresh tokens; the refresh token also
// carries `sign_in`, so every access token of the session keeps auth_time
// and amr. Also the account token of the sign-in (the access token itself
// when `app_id` is 0: its audience is svc already).
TokenPair issue_tokens(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                       core::Context& ctx);
// The same for a sign-in by password now (login, sign-up): amr ["pwd"].
TokenPair issue_tokens(const db::User& user, const std::string& table, long long app_id, core::Context& ctx);

// The keys reset tokens are signed and verified with: each key of [keys] jwt
// (current and previous, same kids) derived with crypto::derive_key_ring and
// the label "svc-reset-token-key", so a reset token carried in a URL is not
// signed with the key of the bearer tokens.
crypto::JwtKeyRing reset_token_keys(const crypto::JwtKeyRing& jwt_keys);

// Writes "access_token" and "refresh_token" members into an open object,
// then "account_token" unless it is "".
void write_tokens(http::JsonWriter& w, const TokenPair& tokens);

// Which profile the session reply carries: login's user object has "role",
// sign-up's has not (spec: "User profile").
enum class Profile { kWithRole, kWithoutRole };

// 200 {"status":"Success","token":{access_token, refresh_token,
// "user":{id, email, firstName, lastName[, role]}}}.
http::Response session_reply(const Session& session, Profile profile);

// The outcome of exchanging a refresh token for a new pair.
enum class RefreshOutcome {
  kOk,
  kMalformed,  // not a refresh JWT of ours (bad signature, type, table or subject)
  kExpired,    // a genuine refresh token past its exp
  kRevoked,    // the user is gone, inactive, or changed the password since (token_version);
               // also a genuine refresh token signed before tokens carried `aud`
               // (docs/decisions.md: such sessions log in again)
};
struct Refreshed {
  RefreshOutcome outcome = RefreshOutcome::kMalformed;
  TokenPair tokens;  // set only for kOk
};

// Verifies `refresh_jwt` against [keys] jwt at the context's clock and, when
// its user still holds it, issues a new pair for the same table and app.
// Reads the user (through ctx.user_cache: a revocation applies within [auth]
// user_cache_seconds); writes nothing.
Refreshed refresh_session(const std::string& refresh_jwt, core::Context& ctx);

}  // namespace svc::auth
