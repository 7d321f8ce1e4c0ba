#pragma once

#include <string>

#include "auth/tokens/access_tokens.hpp"
#include "core/context.hpp"
#include "crypto/jwt.hpp"
#include "db/user_repo.hpp"
#include "http/json.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::auth {

struct TokenPair {
  std::string access_token;
  std::string refresh_token;
  // A sign-in's account token (auth/tokens/access_tokens.hpp issue_account_token);
  // "" in a refresh reply: the account routes want a recent sign-in anyway.
  std::string account_token;
  // The session the pair belongs to (its `sid`): the OpenID Connect
  // provider names its single sign-on session with it. Not sent to clients.
  std::string sid;
  // SessionTicket::device_cookie of a sign-in: session_reply sends it as
  // Set-Cookie. "" for none.
  std::string device_cookie = {};
};

// A signed-in user and the tokens just issued to them (login, sign-up).
struct Session {
  db::User user;
  TokenPair tokens;
};

// A sign-in: opens its server-side session (auth/session/sessions.hpp, with
// the request's IP and user agent) and signs the session's first pair,
// with the account token of the sign-in (the access token itself when
// `app_id` is 0: its audience is svc already). Database errors propagate.
TokenPair issue_tokens(const http::Request& request, const db::User& user, const std::string& table, long long app_id,
                       const SignIn& sign_in, core::Context& ctx);
// The same for a sign-in by password now (login, sign-up): amr ["pwd"].
TokenPair issue_tokens(const http::Request& request, const db::User& user, const std::string& table, long long app_id,
                       core::Context& ctx);

// Signs a pair of session `ticket` without touching the database: a fresh
// access token (auth/tokens/access_tokens.hpp, [auth] access_ttl) and a
// refresh JWT (typ "refresh", [auth] refresh_ttl, HS256 with [keys] jwt)
// for the user of `table`. Both carry the user's token_version (a password
// reset revokes earlier refresh tokens) and the session id as `sid`; the
// refresh token also carries the ticket's generation (`gen`) and `sign_in`,
// so every access token of the session keeps auth_time and amr. With
// `grantee`, the access token is that OAuth client's (access_tokens.hpp).
TokenPair sign_pair(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                    const SessionTicket& ticket, core::Context& ctx, const OAuthGrantee* grantee = nullptr);

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
// "user":{id, email, firstName, lastName[, role]}}}, and
// "password_breached": true after it when `password_breached` (a login
// whose password is in the breached list, issue 41).
http::Response session_reply(const Session& session, Profile profile, bool password_breached = false);

// The outcome of exchanging a refresh token for a new pair.
enum class RefreshOutcome {
  kOk,
  kMalformed,       // not a refresh JWT of ours (bad signature, type, table, subject or sid)
  kExpired,         // a genuine refresh token past its exp
  kRevoked,         // the user is gone, inactive, or changed the password since (token_version);
                    // also a genuine refresh token signed before tokens carried `aud`
                    // (docs/decisions.md: such sessions log in again)
  kSessionRevoked,  // its session was revoked or ended, or this token was reused (which revoked it)
  kOAuthGrant,      // the session was granted to an OAuth client: it refreshes only at the client's
                    // token endpoint, with the client's authentication (nothing rotated)
};
struct Refreshed {
  RefreshOutcome outcome = RefreshOutcome::kMalformed;
  TokenPair tokens;  // set only for kOk
};

// Verifies `refresh_jwt` against [keys] jwt at the context's clock and, when
// its user still holds it, rotates its session (auth/session/sessions.hpp
// rotate_session: a reuse revokes it) and issues a new pair for the same
// table and app. A token that carries its user's email_verified (every one
// since issue 52) is checked against the user row in the rotation's own
// statement (a password reset or deactivation applies at once); an older
// one reads the user through ctx.user_cache (within [auth]
// user_cache_seconds; a revoked session at once). `grantee` is the OAuth
// client the token endpoint authenticated (its grant checked by the
// caller); without one, a token of a session granted to an OAuth client is
// kOAuthGrant.
Refreshed refresh_session(const http::Request& request, const std::string& refresh_jwt, core::Context& ctx,
                          const OAuthGrantee* grantee = nullptr);

}  // namespace svc::auth
