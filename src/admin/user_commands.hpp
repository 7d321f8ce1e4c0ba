#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// user create: reads the password from standard input, stores its Argon2id hash.
int cmd_user_create(const Args& args, const std::string& config_path);
// users mfa-reset --email E [--table T]: removes the user's second factor
// (TOTP secret, recovery codes, open mfa_tokens) for a lost device, with an
// audit row mfa_reset; the next login needs the password only.
int cmd_users_mfa_reset(const Args& args, const std::string& config_path);
// user delete --email E [--site N] [--table T]: deletes the user and every
// row keyed to them, as POST /auth/account/delete does (audit row
// account_deleted with a hashed id; the account-deleted notice from site N,
// or from svc itself without --site).
int cmd_user_delete(const Args& args, const std::string& config_path);
// user export --email E [--table T]: prints the JSON of POST
// /auth/account/export for the user.
int cmd_user_export(const Args& args, const std::string& config_path);

}  // namespace svc::admin
