#pragma once
// svc-admin doctor: checks a deployment and prints one table row per check,
// with what to do for each failure. docs/operations.md, "svc-admin doctor",
// lists the rows.

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// doctor [--socket ADDR] [--nginx-snippet PATH] [--sql-dir DIR]
//        [--max-pending-age 1h] [--sender-max-age 10m] [--timeout 5]
// Exit 0 only when every row passes; 1 otherwise (a row that could not run
// because an earlier one failed shows as "skip"). Never writes anything.
int cmd_doctor(const Args& args, const std::string& config_path);

}  // namespace svc::admin
