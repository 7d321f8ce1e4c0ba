#pragma once
// svc-admin commands over the notification outbox (svc_notification_log).

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// outbox stats: rows per status, due and claimed Pending rows, oldest Pending age.
int cmd_outbox_stats(const Args& args, const std::string& config_path);
// outbox retry ID: a Failed row back to Pending, attempts 0, due now.
int cmd_outbox_retry(const Args& args, const std::string& config_path);
// outbox list [--status Pending|Sent|Failed] [--site N] [--limit N]: newest first.
int cmd_outbox_list(const Args& args, const std::string& config_path);

}  // namespace svc::admin
