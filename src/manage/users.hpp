#pragma once
// The Users capability of site management (design "Site administrators and
// the site management API"): the users of the site's pool, for svc-admin
// (`user list|find|show|disable|enable|invite|delete|reset-password|
// resend-verification`, `users mfa-reset`) and /admin/sites/{site}/users.
//
// The operator may name no site (`user delete`, `users mfa-reset` without
// --site): then the actor's site is 0, its pool the user's, no site is told
// (no webhook event, account mail from svc itself) and no site's audit
// holds a row (svc_audit_log still does).

#include <optional>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/passkey_repo.hpp"
#include "db/session_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "manage/actor.hpp"
#include "manage/page.hpp"

namespace svc::manage {

// The auth table a request names (one of [auth] tables), or the first of
// them when it names none; 400 (field "table") for any other name.
db::TableName users_table(core::Context& ctx, const std::optional<std::string>& name);

// A page of the pool's users whose address begins with `prefix`, in
// address order. Any role.
Page<db::User> list_users(core::Context& ctx, const Actor& actor, const db::TableName& table, const std::string& prefix,
                          const std::string& cursor, int limit);

struct UserDetail {
  db::User user;
  bool totp = false;
  int recovery_codes_left = 0;
  std::vector<db::Passkey> passkeys;     // on this site
  std::vector<db::SessionRow> sessions;  // open ones, on any site of the pool
  long long last_sign_in = 0;            // the newest open session's sign-in; 0 = none open
};

// The user with this id in the site's pool; 404 "User not found" for an id
// that names none there (another pool's user is not found either). Any role.
db::User pool_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);
UserDetail show_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

// Disables (sign-in refused like a wrong password, every session ended) or
// enables the user. Role admin. Returns the user as it is now.
db::User set_user_active(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id,
                         bool active);

// Ends every open session of the user; returns how many. Role admin.
int end_user_sessions(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

struct Invitation {
  std::string email;
  std::string first_name;
  std::string last_name;
  std::string role = "user";  // the user's primary_role, not a site role
};

// Creates the user in the site's pool with no password
// (auth::kInvitedPassword) and mails the `invitation` template with a
// set-password link (auth::queue_invitation); the user row, its version
// row, the webhook event user.created, the mail and the audit row
// users.create commit together. Role admin. 400 on email, first_name,
// last_name or role; 409 "User with this email already exists" when the
// address is taken in the pool; 409 when the site sends no e-mail or has no
// reset page (no invitation could be sent, nothing is created).
db::User invite_user(core::Context& ctx, const Actor& actor, const db::TableName& table, const Invitation& invitation);

// Deletes the user and every row keyed to them, as POST /auth/account/delete
// does (auth::delete_account: the account-deleted notice, user.deleted),
// with the audit row users.delete in the same transaction. Role admin; a
// user who administers this site only by its owner (403 otherwise), and
// never the site's last owner (409).
void delete_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

// Removes the user's second factor (TOTP secret, recovery codes, open
// challenges) for a lost device: the next sign-in needs the first factor
// only. Writes svc_audit_log mfa_reset and users.mfa_reset, and
// user.mfa_disabled when a confirmed factor went. Role admin (owner for a
// user who administers this site). Returns whether a confirmed factor was
// removed (false: none, a pending enrolment is dropped).
bool reset_second_factor(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

// Mails the user the reset mail /auth/request-pass sends for this site
// (auth::request_password_reset: the site's first reset URL), then the
// audit row users.password_reset. Role admin. 409 for a disabled user, one
// with no password to reset, a site that sends no e-mail or has no reset
// page; 429 "Too many requests" beyond the reset mails' daily cap.
void send_password_reset(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

// Mails the user a new verification link as /auth/verify-email/resend does
// (its caps included), then the audit row users.verification_resend. Role
// admin. 409 for a verified address, a disabled user, a site that does not
// verify addresses or sends no e-mail, or no verification page; 429 "Too
// many requests" within the resend gap or beyond the daily cap.
void resend_verification(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

}  // namespace svc::manage
