#include "admin/webhook_commands.hpp"

#include <cstdio>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "core/text.hpp"
#include "db/webhook_repo.hpp"
#include "webhooks/client.hpp"
#include "webhooks/events.hpp"
#include "webhooks/signature.hpp"

namespace svc::admin {
namespace {

// The endpoint id of `webhook VERB ID`.
long long endpoint_id(const Args& args, const char* verb) {
  args.allow_only({});
  const auto& words = args.words();
  if (words.size() != 3) throw UsageError(std::string("webhook ") + verb + " takes one endpoint id");
  const auto id = core::parse_id(words[2]);
  if (!id) throw UsageError(std::string("webhook ") + verb + ": '" + words[2] + "' is not an endpoint id");
  return *id;
}

db::WebhookEndpoint existing(db::WebhookRepo& repo, long long id) {
  auto endpoint = repo.find_endpoint(id);
  if (!endpoint) throw std::runtime_error("no webhook endpoint " + std::to_string(id));
  return *endpoint;
}

// A fresh key, sealed for the site; prints its whsec_ form.
std::string new_sealed_secret(const CommandEnv& env, long long site_id) {
  if (env.config.keys.webhook_key.empty()) {
    throw std::runtime_error("[keys] webhook_key is not set (svc-admin keygen prints one)");
  }
  const std::string key = webhooks::new_secret_key();
  std::printf("secret %s\n", webhooks::format_secret(key).c_str());
  return webhooks::seal_secret(key, env.config.keys.webhook_key, site_id);
}

int set_enabled(const Args& args, const std::string& config_path, bool enabled) {
  const long long id = endpoint_id(args, enabled ? "enable" : "disable");
  CommandEnv env(config_path);
  db::WebhookRepo repo(env.db);
  if (!repo.set_enabled(id, enabled, "operator")) throw std::runtime_error("no webhook endpoint " + std::to_string(id));
  std::printf("webhook endpoint %lld %s\n", id, enabled ? "enabled" : "disabled");
  return 0;
}

}  // namespace

int cmd_webhook_add(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "url", "events"});
  const long long site_id = args.required_integer("site");
  const std::string url = args.required("url");
  std::string unknown;
  const auto events = webhooks::parse_event_list(args.required("events"), unknown);
  if (!events) {
    throw UsageError(unknown.empty() ? "--events needs at least one event"
                                     : "--events: unknown event '" + unknown + "' (docs/webhooks.md lists them)");
  }
  CommandEnv env(config_path);
  const webhooks::WebhookOptions options{env.config.push.allow_insecure_endpoints, env.config.push.allowed_ports};
  if (const std::string problem = webhooks::url_problem(url, options); !problem.empty()) {
    throw UsageError("--url refused: " + problem);
  }
  env.site(site_id);
  db::WebhookRepo repo(env.db);
  const std::string sealed = new_sealed_secret(env, site_id);
  const long long id = repo.add_endpoint(site_id, url, *events, sealed);
  std::printf("endpoint %lld\n", id);
  return 0;
}

int cmd_webhook_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  const long long site_id = args.required_integer("site");
  CommandEnv env(config_path);
  return print_listing(db::WebhookRepo(env.db).endpoints(site_id), "no webhook endpoints",
                       "id\tstate\tfailures\tevents\turl", [](const db::WebhookEndpoint& e) {
                         std::printf("%lld\t%s\t%d\t%s\t%s%s\n", e.id, e.enabled ? "enabled" : "disabled", e.failures,
                                     e.events.c_str(), core::mask_controls(e.url).c_str(),
                                     e.enabled ? "" : ("\t(" + e.disabled_reason + ")").c_str());
                       });
}

int cmd_webhook_disable(const Args& args, const std::string& config_path) {
  return set_enabled(args, config_path, false);
}

int cmd_webhook_enable(const Args& args, const std::string& config_path) {
  return set_enabled(args, config_path, true);
}

int cmd_webhook_rotate_secret(const Args& args, const std::string& config_path) {
  const long long id = endpoint_id(args, "rotate-secret");
  CommandEnv env(config_path);
  db::WebhookRepo repo(env.db);
  const auto endpoint = existing(repo, id);
  const long long overlap = env.config.webhooks.secret_overlap_seconds;
  repo.rotate_secret(id, new_sealed_secret(env, endpoint.site_id), overlap);
  std::fprintf(stderr, "svc-admin: the old secret signs beside the new one for %lld s\n", overlap);
  return 0;
}

int cmd_webhook_delete(const Args& args, const std::string& config_path) {
  const long long id = endpoint_id(args, "delete");
  CommandEnv env(config_path);
  db::WebhookRepo repo(env.db);
  existing(repo, id);
  repo.delete_endpoint(id);
  std::printf("webhook endpoint %lld deleted\n", id);
  return 0;
}

int cmd_webhook_deliveries(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "limit"});
  const long long site_id = args.required_integer("site");
  const long long limit = args.integer("limit", 50);
  if (limit < 1 || limit > 10000) throw UsageError("--limit expects 1 to 10000");
  CommandEnv env(config_path);
  return print_listing(db::WebhookRepo(env.db).deliveries(site_id, static_cast<int>(limit)), "no webhook deliveries",
                       "id\tendpoint\twebhook-id\ttype\tstatus\tattempts\tlast status\tnext attempt\tlast error",
                       [](const db::WebhookDeliveryListing& d) {
                         std::printf("%lld\t%lld\t%s\t%s\t%s\t%d\t%d\t%lld\t%s\n", d.id, d.endpoint_id,
                                     d.msg_id.c_str(), d.event_type.c_str(), d.status.c_str(), d.attempts,
                                     d.last_status, d.next_attempt_at, core::mask_controls(d.last_error).c_str());
                       });
}

}  // namespace svc::admin
