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

}  // namespace svc::admin
