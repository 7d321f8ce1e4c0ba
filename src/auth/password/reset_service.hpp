#pragma once
// The two steps of a password reset, behind /auth/request-pass and
// /auth/reset-pass. A reset token is a JWT (typ "reset") naming the user, the
// auth table and the site, and carrying a fingerprint of the password hash it
// was issued for and of the address it was mailed to, so it is spent once
// the password or the address changes.

#include <optional>
#include <string>
#include <string_view>

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// The password column of an invited user until they choose a password
// through the invitation's link: no password matches it
// (crypto::is_verifiable_hash), but a reset token issued for it may set one,
// so the invitation's link works and so does a later "forgot password".
inline constexpr std::string_view kInvitedPassword = "!invited";

// How long an invitation's link works (7 days): a reset token like any
// other, bound to kInvitedPassword and the address, so it is spent once a
// password is set.
inline constexpr long long kInvitationSeconds = 7 * 24 * 3600;

// True for an account that may get a reset mail and a new password: active,
// and with a password column that can ever match (not "!", NULL or ""), or
// invited (kInvitedPassword).
bool may_reset(const core::Context& ctx, const db::User& user);

// Whether a link can go to the site without a request's url: the site has
// reset URLs, or [auth] reset_page is set.
bool has_reset_page(const core::Context& ctx, const db::Site& site);

// Queues the `invitation` mail to `user` (the site's enabled template, else
// the built-in one) with a set-password link: a reset token valid
// kInvitationSeconds to the site's first reset URL (else the ready page), as
// request_password_reset makes it. Inside the caller's transaction when one
// is open (the one that inserted the user). REQUIRES: the user's password
// column is kInvitedPassword, the site sends e-mail and has_reset_page().
void queue_invitation(core::Context& ctx, const http::Request& request, const db::Site& site,
                      const db::TableName& table, const db::User& user);

// Step 1: finds the active site `app_id` (else a 400 Validation error on
// appID), picks the reset page (`url` when it is https, or http to
// loopback, and lies within one of the site's reset URLs
// (http/reset_url.hpp), else a 400 on url; the site's first reset URL when
// `url` is absent, a 400 on url when it has none), signs a reset token for
// the user of `email` in `table` (the token names that table; signed with
// reset_token_keys(), tokens.hpp) and queues the reset mail (the site's
// enabled `password-reset` template, or a built-in one) with the link. Only
// an active user whose password column can ever match
// (crypto::is_verifiable_hash) gets the mail, and no one when the site has
// disable_email; for everyone else the same statements run (template read
// and rendered, outbox row inserted) in a transaction that is rolled back,
// and the token is signed for user 0. The audit row is written either way
// and the reply does not differ. `request` supplies the audit row's IP,
// user agent and id. Reset mail is held to the e-mail codes' daily cap
// (auth/email/mail_caps.hpp: email_code_max_sent_daily a day per user;
// beyond it, the same work and no mail), unless `capped` is false (the "this wasn't me" reset, which a
// spent-once link starts); every reset mail counts. Returns whether the mail
// was queued (for svc's own callers; the reply never tells).
bool request_password_reset(core::Context& ctx, const http::Request& request, const std::string& email,
                            long long app_id, const db::TableName& table, const std::optional<std::string>& url,
                            bool capped = true);

// The `pwf` claim of a reset token: crypto::password_fingerprint under
// [keys] reset_key of the password hash it was issued for, a line feed and
// the lower-cased address it was mailed to.
std::string reset_token_fingerprint(std::string_view reset_key, const std::string& password_hash,
                                    const std::string& email);

// The site a reset token names (its `app` claim) when the token verifies
// (signature, expiry, typ), else 0: whose minimum password score the new
// password must reach (policy.hpp). Step 2 checks the token fully.
long long reset_token_site(core::Context& ctx, const std::string& token);

// Step 2: checks `token` (signature under reset_token_keys(), expiry, typ
// "reset", aud "svc-reset", a table of [auth] tables that equals `table` when
// one is given, that the user is active with a usable password column, and
// that the user's password hash and address are still the ones it was issued for), then, in ONE transaction, stores
// the hash of `password` in the token's table, revokes every refresh token
// issued so far (token_version + 1) and writes the svc_versions "update" row,
// so a crash can never leave the new password with the old refresh tokens
// valid or without its version row. Audits it and queues the site's enabled
// `password-changed` mail, if any. An invited user (kInvitedPassword) may
// set a password so; the address is proven by it as by any reset.
// REQUIRES: `password` passed the strength rule and its confirmation.
// Throws http::ApiError 400 "Reset password token has expired or is invalid"
// (also when `table` is not the token's, and when another reset changed the
// password first).
void reset_password(core::Context& ctx, const http::Request& request, const std::string& token,
                    const std::optional<db::TableName>& table, const std::string& password);

}  // namespace svc::auth
