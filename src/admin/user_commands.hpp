#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// user create: reads the password from standard input, stores its Argon2id hash.
int cmd_user_create(const Args& args, const std::string& config_path);

}  // namespace svc::admin
