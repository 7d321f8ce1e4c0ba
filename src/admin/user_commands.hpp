#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// user create: reads the password from standard input, stores its Argon2id hash.
int cmd_user_create(const Args& args, const std::string& config_path);
// users mfa-reset --email E [--site N] [--table T]: removes the user's
// second factor (TOTP secret, recovery codes, open mfa_tokens) for a lost
// device (manage::reset_second_factor: audit rows mfa_reset and, with
// --site, users.mfa_reset); the next login needs the password only.
int cmd_users_mfa_reset(const Args& args, const std::string& config_path);
// user delete --email E [--site N] [--table T]: deletes the user and every
// row keyed to them, as POST /auth/account/delete does (manage::delete_user:
// audit row account_deleted with a hashed id, and users.delete with --site;
// the account-deleted notice from site N, or from svc itself without --site).
int cmd_user_delete(const Args& args, const std::string& config_path);
// user invite --site N --email E [--first F --last L --role R --table T]:
// creates the user with no password and mails the invitation with a
// set-password link (manage::invite_user); prints the new id.
int cmd_user_invite(const Args& args, const std::string& config_path);
// user reset-password --site N --email E [--table T]: mails the reset mail
// of /auth/request-pass (manage::send_password_reset).
int cmd_user_reset_password(const Args& args, const std::string& config_path);
// user resend-verification --site N --email E [--table T]: mails a new
// verification link (manage::resend_verification).
int cmd_user_resend_verification(const Args& args, const std::string& config_path);
// user export --email E [--table T]: prints the JSON of POST
// /auth/account/export for the user.
int cmd_user_export(const Args& args, const std::string& config_path);

}  // namespace svc::admin
