#pragma once

#include <string>
#include <vector>

#include "auth/mfa/mail.hpp"
#include "core/context.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::auth {

// The user a request's `Authorization: Bearer <access token>` names, for the
// endpoints where users manage their own second factor.
struct SignedInUser {
  db::User user;
  db::TableName table;
  long long app_id = 0;          // the token's client_id; 0 = issued without an appID
  long long auth_time = 0;       // when the session's sign-in happened (unix seconds)
  std::string sid;               // the token's session ("" for a token from before sessions)
  std::vector<std::string> amr;  // the token's methods (RFC 8176): "pwd", "otp", "mfa", "hwk", ...
};

// Checks the bearer access token against the key set and svc's own audience
// ([tokens] issuer: an account token, or an access token issued without an
// appID; never a site's audience, RFC 9068 §4), and that its user still
// exists, is active and has not changed the password since (token_version).
// Throws ApiError 401 Unauthorized otherwise.
SignedInUser require_signed_in(const http::Request& request, core::Context& ctx);

// require_signed_in, with the check that the token's session is not ended
// left to the caller (kByCaller) when it reads the session in a statement of
// its own: the site management guard reads it with the admin's grant.
enum class SessionCheck { kHere, kByCaller };
SignedInUser require_token_user(const http::Request& request, core::Context& ctx, SessionCheck session);

// How recent a sign-in must be to enrol a factor or a passkey.
inline constexpr long long kEnrolmentSignInAge = 600;

// Before enrolling a second factor or a passkey (docs/decisions.md "Issue
// 36: pre-hijacking"): throws 403 Email not verified unless the user proved
// the address, then 401 Recent sign-in required, log in again unless the
// session's sign-in is at most kEnrolmentSignInAge seconds old.
void require_enrolment_allowed(const SignedInUser& me, core::Context& ctx);

// Counts one attempt of the signed-in user (a code or a password) in the
// account's login throttle, keyed by the e-mail in lower case, which it
// returns (for ThrottleRepo::reset after a right answer). Throws 429 Too
// many attempts while the throttle is locked.
std::string claim_own_attempt(core::Context& ctx, const SignedInUser& me);

// Checks a TOTP code of the signed-in user's own factor (auth/mfa/totp_factor.hpp
// accept_totp; `confirming` as there), counted in the account's login
// throttle like a login attempt and, unless `confirming`, toward the lock
// on wrong answers (auth/mfa/guard.hpp). Throws 429 Too many attempts when
// either is locked and 400 Invalid code (audit mfa_code_failed) when the
// code is not accepted; a right code resets the throttle.
void require_own_code(const http::Request& request, core::Context& ctx, const SignedInUser& me, const std::string& code,
                      bool confirming);

// The whole of /auth/mfa/totp/confirm (`confirming` true) and
// /auth/mfa/recovery-codes: the signed-in user's body `code` checked by
// require_own_code (`confirming` as there), then the audit row `event`
// (with `detail`), the notice of `change` and a new set of recovery codes,
// which the 200 reply carries (the old set is spent).
http::Response recovery_codes_for_own_code(const http::Request& request, core::Context& ctx, bool confirming,
                                           const char* event, const char* detail, MfaChange change);

}  // namespace svc::auth
