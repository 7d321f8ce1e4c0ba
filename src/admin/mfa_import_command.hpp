#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// users mfa-import --email E [--site N] [--table T] --secret-file FILE:
// makes the base32 TOTP secret in FILE (e.g. exported from the system the
// users come from) the user's confirmed second factor, with an audit row
// mfa_imported; the user's authenticator app keeps working. Refused when the
// user has a confirmed factor (users mfa-reset first).
int cmd_users_mfa_import(const Args& args, const std::string& config_path);

}  // namespace svc::admin
