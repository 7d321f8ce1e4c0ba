#pragma once
// Server-side sessions (docs/decisions.md "Sessions"): every sign-in opens
// one, its tokens carry the id as `sid`, its refresh token rotates, and one
// mechanism ends them (end_sessions) for every security event. The rows are
// db::SessionRepo's; this file holds the rules.

#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/session_repo.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// How and when the user proved who they are: carried from the sign-in into
// the session and every access token of it (refresh tokens keep it).
struct SignIn {
  long long auth_time = 0;       // unix seconds
  std::vector<std::string> amr;  // RFC 8176, e.g. {"pwd"}
  // false: the sign-in's own first read (of the user, or of its second
  // factor's challenge) found no endpoint of the site for session.created
  // (db::has_subscriber), so open_session writes the session alone, without
  // a transaction. true: the event is queued with the session in one
  // transaction, for whichever endpoints have it then (docs/webhooks.md).
  bool session_event = true;
};

// The session a refresh token is to be issued for: its id and generation.
struct SessionTicket {
  std::string id;
  long long generation = 1;
  // The Set-Cookie value of a sign-in from a device without the device
  // cookie (auth/session/device.hpp); "" otherwise. The reply carries it.
  std::string device_cookie = {};
};

// A session id as svc makes them: 22 base64url characters (16 random bytes).
bool is_session_id(std::string_view id);

// Opens a session for `user` of `table` on `site_id` (0 = none) with the
// request's IP, user agent and device (its svc_device cookie, or a new one
// for the reply to set); its refresh token expires [auth] refresh_ttl
// from now. Counts it in the sessions-opened metric. On a site with
// new_device_mail on, a sign-in from a new device also queues the
// new-device mail (auth/session/new_device.hpp). Database errors propagate.
SessionTicket open_session(core::Context& ctx, const http::Request& request, const db::User& user,
                           const std::string& table, long long site_id, const SignIn& sign_in);

// What a presented refresh token of session `sid` at generation `gen` gets.
enum class RotateOutcome {
  kRotated,     // the token was current: the session moved to the next generation
  kGrace,       // the token was the previous one, within [tokens] refresh_reuse_seconds:
                // a valid pair of the current generation, nothing moves
  kReused,      // an older token, or the previous one later: the session is now revoked
  kRevoked,     // the session was revoked or has expired (or is unknown: purged)
  kMismatch,    // the session is not this user's, or the generation is from the future
  kOAuthGrant,  // the session is an OAuth client's and the caller is not its token endpoint: nothing moves
};
struct Rotation {
  RotateOutcome outcome = RotateOutcome::kRevoked;
  SessionTicket ticket;  // for kRotated and kGrace
};

// The rotation of /auth/refresh-token (`oauth_grant_ok` false: a session
// granted to an OAuth client is kOAuthGrant) and of the OpenID Connect
// token endpoint (true). A reuse leaves an audit row (`refresh_reuse`, the
// session id in its detail), a warn log line with the session id (never a
// token) and a count in the reuse metric.
Rotation rotate_session(core::Context& ctx, const http::Request& request, const std::string& sid, long long gen,
                        const std::string& table, long long user_id, bool oauth_grant_ok);

// rotate_session's statement alone (`oauth_grant_ok`: without the grant
// probe, for a caller that knows the session is no OAuth client's or that
// the client authenticated), with the user checked in it (`user`):
// true when the token was current and its user as it says, and the session
// moved to the next generation (counted as a refresh). False says nothing
// of why (nor whether the connection was lost on the way): after the user
// is read, rotate_session rotates or decides.
bool rotate_current(core::Context& ctx, const http::Request& request, const db::SessionClaim& claim,
                    bool oauth_grant_ok, const db::UserHold& user);

// A refresh token from before sessions (no sid) of `user`: opens the
// session it continues, once per token (its jti). kRotated with the new
// session, or kReused when that token already opened one (which is then
// revoked).
Rotation adopt_legacy_token(core::Context& ctx, const http::Request& request, const std::string& jti,
                            const db::User& user, const std::string& table, long long site_id, const SignIn& sign_in);

// Ends sessions: one mechanism for every security event (sign-out, password
// reset or change, factor on or off, passkey removed, operator). Revokes
// every open session of the user of `table` but `keep_sid` ("" = all) with
// `reason`, counts them in the revocation metric and returns how many.
// Queues a session.revoked webhook event per session ended and cancels the
// user's pending e-mail changes (db::AccountRepo::cancel_pending_changes),
// in the caller's transaction (or one of its own).
int end_sessions(core::Context& ctx, const std::string& table, long long user_id, const std::string& reason,
                 const std::string& keep_sid = "");

// Ends one session if it is the user's; false when it is unknown, another
// user's or already ended.
bool end_session(core::Context& ctx, const std::string& table, long long user_id, const std::string& sid,
                 const std::string& reason);

}  // namespace svc::auth
