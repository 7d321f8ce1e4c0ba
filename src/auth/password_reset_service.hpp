#pragma once
// The two steps of a password reset, behind /auth/request-pass and
// /auth/reset-pass. A reset token is a JWT (typ "reset") naming the user, the
// auth table and the site, and carrying a fingerprint of the password hash it
// was issued for, so it is spent once the password changes.

#include <optional>
#include <string>

#include "core/context.hpp"
#include "db/table_name.hpp"
#include "http/request.hpp"

namespace svc::auth {

// Step 1: finds the active site `app_id` (else a 400 Validation error on
// appID), picks the reset page (`url` when its host is one of the site's
// allowed_redirect_hosts, else a 400 on url; the site's reset_url when `url`
// is absent, a 400 on url when that is empty too), signs a reset token for
// the user of `email` in `table` (the token names that table) and queues the
// reset mail (the site's enabled `password-reset` template, or a built-in
// one) with the link. The token is signed and the audit row written whether
// or not the e-mail is registered in `table`, and the reply does not differ;
// only a registered, active user gets the mail (and its outbox row), and no
// one does when the site has disable_email. `request` supplies the audit
// row's IP, user agent and id.
void request_password_reset(core::Context& ctx, const http::Request& request, const std::string& email,
                            long long app_id, const db::TableName& table, const std::optional<std::string>& url);

// Step 2: checks `token` (signature, expiry, typ "reset", a table of [auth]
// tables that equals `table` when one is given, and that the user's password
// hash is still the one it was issued for), then, in ONE transaction, stores
// the hash of `password` in the token's table, revokes every refresh token
// issued so far (token_version + 1) and writes the svc_versions "update" row,
// so a crash can never leave the new password with the old refresh tokens
// valid or without its version row. Audits it and queues the site's enabled
// `password-changed` mail, if any.
// REQUIRES: `password` passed the strength rule and its confirmation.
// Throws http::ApiError 400 "Reset password token has expired or is invalid"
// (also when `table` is not the token's, and when another reset changed the
// password first).
void reset_password(core::Context& ctx, const http::Request& request, const std::string& token,
                    const std::optional<db::TableName>& table, const std::string& password);

}  // namespace svc::auth
