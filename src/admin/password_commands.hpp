#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// passwords import-breached FILE [--min-count N]: reads the Have I Been Pwned
// download (SHA1:COUNT lines ordered by hash; "-" = standard input) into
// [auth] breached_list (crypto/breached_import.hpp): a progress line on
// standard error every few seconds, the new list renamed over the old one
// at the end; a malformed, unsorted or truncated input fails with its line
// number and leaves the old list as it was. Opens no connection: neither
// the database nor the network.
int cmd_passwords_import_breached(const Args& args, const std::string& config_path);

}  // namespace svc::admin
