#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// The svc-admin help text (every command with its options).
std::string usage();

// Runs the command named by args.words(); returns the exit code. Throws
// UsageError for a bad command line, std::exception for anything else.
int run_command(const Args& args, const std::string& config_path);

}  // namespace svc::admin
