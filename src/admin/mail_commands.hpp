#pragma once
// svc-admin mail ingest: bounces and complaints in (docs/operations.md
// "Bounces, complaints and suppression"; the suppression commands are in
// outbox_commands.hpp).

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// Reads one message on standard input, the way an MTA's pipe transport or
// an aliases entry hands it over. Returns a sysexits code: 0 processed or
// deliberately ignored, 64 bad command line, 65 unreadable message, 75 the
// database failed (the MTA keeps the message and retries), 78 bounce
// handling is not configured.
int cmd_mail_ingest(const Args& args, const std::string& config_path);

}  // namespace svc::admin
