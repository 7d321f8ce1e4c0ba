#pragma once
// Account self-service (issue 38; docs/decisions.md "Account self-service"):
// a signed-in user changes the password and the address, deletes the
// account and downloads what svc holds about it. Every route takes the
// account token (auth/mfa/bearer.hpp require_signed_in); the confirmation
// and undo links of an e-mail change are single-purpose tokens (JWT typ
// "email-change" / "email-undo", aud "svc-<typ>", signed with a key derived
// from [keys] jwt for them only) naming a row of svc_email_changes (sql/024),
// which says whether each was used.

#include <string>

#include "auth/mfa/bearer.hpp"
#include "core/context.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// How long the undo link of an e-mail change works (7 days).
inline constexpr long long kEmailUndoSeconds = 7 * 24 * 3600;

// Checks the user's own password, counted in the login throttle like a
// login (429 Too many attempts while locked): a wrong one writes the audit
// row `event` and throws 401 Invalid credentials; a right one resets the
// throttle.
void require_own_password(const http::Request& request, core::Context& ctx, const SignedInUser& me,
                          const std::string& password, const char* event);

// POST /auth/password/change after the password checks: stores the hash of
// `fresh`, writes the version row and ends every other session, in one
// transaction with the webhook event user.password_changed (and a
// session.revoked each); then the audit row and the `password-changed` notice.
void change_password(const http::Request& request, core::Context& ctx, const SignedInUser& me,
                     const std::string& fresh);

// POST /auth/email/change after the password check: 409 User with this
// email already exists when `fresh` is taken; 429 Too many requests beyond
// the e-mail codes' caps (auth/email/mail_caps.hpp); else a
// svc_email_changes row, the confirmation link to `fresh`
// (email-change-confirm) and the notice with the undo link to the current
// address (email-change-notice). Both links carry the fingerprint of the
// password hash. The change stays pending until confirmed, undone, or
// cancelled (db::AccountRepo::cancel_pending_changes: every end_sessions
// and every proof of the address).
void request_email_change(const http::Request& request, core::Context& ctx, const SignedInUser& me,
                          const std::string& fresh);

// POST /auth/email/change/confirm and /undo. Throw 400 Email change token
// has expired or is invalid for a bad, expired or used token, 409 User with
// this email already exists when the address to set was taken meanwhile
// (nothing changes then). A confirmation is also refused (400) once the
// session that asked has ended or the password changed since the request,
// and mails the old address the `email-changed` notice with an undo link;
// an undo of a confirmed change is refused (400) once the password changed
// since the request. A confirmation, and an undo of a confirmed change,
// queue user.email_changed (the address now set) in their transaction.
void confirm_email_change(const http::Request& request, core::Context& ctx, const std::string& token);
void undo_email_change(const http::Request& request, core::Context& ctx, const std::string& token);

// Deletes `user` of `table` and every row keyed to them (db::AccountRepo::
// erase_user_rows) in one transaction with the audit row `account_deleted`,
// whose detail names the user by a keyed hash only, and the
// `account-deleted` notice from `site_id` (0: svc itself). `actor` goes into
// the detail ("user", "site admin" or "operator"). `request` may be a blank
// one (svc-admin). Inside the caller's transaction when one is open (a site
// administrator's deletion commits with its svc_admin_audit row).
// The webhook event user.deleted goes to `site_id`'s endpoints in the same
// transaction (none for site 0); the sessions go with the user's rows,
// without a session.revoked each.
void delete_account(const http::Request& request, core::Context& ctx, const db::TableName& table, const db::User& user,
                    long long site_id, const char* actor);

// The export of `user` of `table` as a JSON object (docs/api.md "Download
// my data"): {"profile":{...}, "sessions":[...], ...}; never a password
// hash, a secret or a token. "mail" is empty while the address is not
// proven (db::AccountRepo::export_part says which mail it holds).
std::string export_account(core::Context& ctx, const db::TableName& table, const db::User& user);

}  // namespace svc::auth
