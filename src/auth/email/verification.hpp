#pragma once
// Verified addresses (issue 26, docs/decisions.md "E-mail codes and
// verified addresses"): the verification mail, its link and the POST that
// spends it. A verification token is a JWT (typ "verify", aud "svc-verify")
// signed with a key derived from [keys] jwt for this purpose only, naming
// the user, the auth table and the site, valid [auth] verify_ttl, and
// carrying a fingerprint of the address it was sent to, so it proves only
// that address. The link is [auth] verify_page + "?site=N#token=…" (the
// page shows the site's name): the token never travels in a query string,
// and opening the page changes nothing
// (only the page's button POSTs it), so mail scanners cannot spend it.

#include <string>

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// Queues the verification mail to `user` of `table` (the site's enabled
// `verify-email` template, else the built-in one; high priority) unless
// the site has disable_email or no verification page is configured (then
// logs verify_page_missing). For sign-up on a site with verify_email.
void queue_verification_mail(core::Context& ctx, const http::Request& request, const db::Site& site,
                             const db::TableName& table, const db::User& user);

// POST /auth/verify-email/resend: a new verification mail when `email`
// names an active user of `table` whose address is not verified yet, the
// site of `app_id` verifies addresses (site set --verify-email) and sends
// e-mail, and the e-mail codes' caps allow it: no other resend to the user
// within [auth] email_code_resend_seconds, at most email_code_max_sent_daily
// over a rolling 24 h (svc_email_code_events, kind "verify"; the sign-up's
// own mail is not counted). The same statements run whoever asks (a
// token signed for user 0, the mail rendered and inserted in a transaction
// that is rolled back), like request-pass. Throws http::ApiError 400 on
// appID when it names no active site. Returns whether the mail was queued
// (for svc's own callers; the reply never tells).
bool resend_verification(core::Context& ctx, const http::Request& request, const std::string& email, long long app_id,
                         const db::TableName& table);

// POST /auth/verify-email: checks the token (signature, expiry, typ, a
// table of [auth] tables, an active user whose address is still the one it
// was sent to) and sets email_verified_at. A token whose address is
// verified already succeeds again (a second click changes nothing). Throws
// http::ApiError 400 "Verification token has expired or is invalid".
void verify_email_token(core::Context& ctx, const http::Request& request, const std::string& token);

}  // namespace svc::auth
