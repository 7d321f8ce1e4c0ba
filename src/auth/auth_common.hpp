#pragma once

#include <optional>
#include <string>

#include "core/context.hpp"
#include "crypto/jwt.hpp"
#include "db/audit_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"
#include "http/validate.hpp"

namespace svc::auth {

// The auth table for a request: the optional `authTable` field when it is in
// [auth] tables (else a field error on authTable), or the first configured
// table (svc_users by default) when absent. nullopt only when an error was added.
std::optional<db::TableName> auth_table(http::Fields& fields, const core::Context& ctx);

// auth_table() for /auth/sign-up: the table must also be one of [auth]
// signup_tables (else a field error on authTable), whether the request named
// it or it is the default.
std::optional<db::TableName> signup_table(http::Fields& fields, const core::Context& ctx);

// The `authTable` field as the request gave it: the table when it is in
// [auth] tables, nullopt when the field is absent or when a field error on
// authTable was added (so after Fields::throw_if_errors(), nullopt means
// absent). For reset-pass, whose default is the reset token's own table.
std::optional<db::TableName> requested_auth_table(http::Fields& fields, const core::Context& ctx);

// Reads and checks `email`: required, a valid address (field errors otherwise).
std::optional<std::string> email_field(http::Fields& fields);

// Writes the svc_versions row of a change to `user` of `table` (`action`:
// "insert" at sign-up, "update" when the password changes): a JSON snapshot
// of id, user_email, first_name, last_name and primary_role; never the
// password hash or a token. Database errors propagate, so a caller inside a
// db::Transaction rolls the change back with its row.
void record_user_version(core::Context& ctx, const db::TableName& table, const db::User& user, const char* action);

// The failed-login throttle's key for an address of `pool`: the address,
// ASCII-lowercased, in the default pool (as before pools); elsewhere the
// pool and a digest of it (fits the column whatever the address's length),
// so failures in one pool never lock the same address in another.
std::string throttle_key(const std::string& email, long long pool);

// An audit row with the request's IP, user agent and request id filled in;
// a row that names a user names the pool of `site_id` too (design "User
// pools").
void audit(core::Context& ctx, const http::Request& request, std::string event, const std::string& table,
           long long user_id, long long site_id = 0, std::string detail = "");

// The claims of a single-purpose account token (reset, address
// verification) of `typ` for `user` of `table` and `site_id`, issued now and
// valid `ttl_seconds`. `user` null (nobody may use the token): subject 0, so
// the signing work is the same. The caller sets `pwf`.
crypto::Claims account_token_claims(core::Context& ctx, const char* typ, const db::User* user, const std::string& table,
                                    long long site_id, long long ttl_seconds);

}  // namespace svc::auth
