#pragma once
// svc-admin webhook …: the endpoints a site subscribed and their deliveries
// (docs/webhooks.md), through the Webhooks service (manage/webhooks.hpp),
// the operator as the actor of its audit rows.

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// webhook add --site N --url URL --events E,E…: checks the URL against the
// SSRF guard and the events against the list, stores the endpoint and prints
// its id and its whsec_ secret (the only time the secret is shown).
int cmd_webhook_add(const Args& args, const std::string& config_path);
// webhook list --site N: one line per endpoint, id first, then enabled or
// disabled, failures, events, URL.
int cmd_webhook_list(const Args& args, const std::string& config_path);
int cmd_webhook_disable(const Args& args, const std::string& config_path);
// webhook enable ID: also clears the failure count; pending deliveries go.
int cmd_webhook_enable(const Args& args, const std::string& config_path);
// webhook rotate-secret ID: prints the new secret; the old one signs beside
// it for [webhooks] secret_overlap_seconds.
int cmd_webhook_rotate_secret(const Args& args, const std::string& config_path);
// webhook delete ID: the endpoint goes; its pending deliveries are dropped.
int cmd_webhook_delete(const Args& args, const std::string& config_path);
// webhook deliveries --site N [--endpoint ID] [--limit 50] [--cursor C]:
// newest first, times readable; "more: --cursor C" when there are more.
int cmd_webhook_deliveries(const Args& args, const std::string& config_path);

}  // namespace svc::admin
