#pragma once
// svc-admin commands over the notification outbox (svc_notification_log)
// and the suppression list, through the Mail service (manage/mail.hpp).

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// outbox stats: rows per status, due and claimed Pending rows, oldest Pending age.
int cmd_outbox_stats(const Args& args, const std::string& config_path);
// outbox retry ID [--site N]: a Failed row back to Pending, attempts 0, due now.
int cmd_outbox_retry(const Args& args, const std::string& config_path);
// outbox show ID [--site N]: the row, its history and the message it sends.
int cmd_outbox_show(const Args& args, const std::string& config_path);
// outbox list [--status Pending|Sent|Failed] [--site N [--event E] [--recipient R]
// [--since D] [--until D]] [--limit N]: newest first.
int cmd_outbox_list(const Args& args, const std::string& config_path);

// suppression list [--site N] [--reason R] [--limit N]: newest first.
int cmd_suppression_list(const Args& args, const std::string& config_path);
// suppression add --site N --email E [--reason R] [--detail TEXT]
int cmd_suppression_add(const Args& args, const std::string& config_path);
// suppression remove --site N --email E [--reason R]
int cmd_suppression_remove(const Args& args, const std::string& config_path);

}  // namespace svc::admin
