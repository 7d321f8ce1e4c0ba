#include "admin/webhook_commands.hpp"

#include <cstdio>

#include "admin/listing.hpp"
#include "admin/manage_env.hpp"
#include "core/text.hpp"
#include "manage/webhooks.hpp"

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

// The operator on the site of the endpoint a command names.
manage::Actor endpoint_actor(ManageEnv& o, long long id) { return o.act_on(manage::endpoint_site(o.ctx, id)); }

int set_enabled(const Args& args, const std::string& config_path, bool enabled) {
  const long long id = endpoint_id(args, enabled ? "enable" : "disable");
  ManageEnv o(config_path);
  manage::set_endpoint_enabled(o.ctx, endpoint_actor(o, id), id, enabled);
  std::printf("webhook endpoint %lld %s\n", id, enabled ? "enabled" : "disabled");
  return 0;
}

}  // namespace

int cmd_webhook_add(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "url", "events"});
  const long long site_id = args.required_integer("site");
  const std::string url = args.required("url");
  const std::string events = args.required("events");
  ManageEnv o(config_path);
  const manage::Actor actor = o.act_on(site_id);
  const auto added = naming_options({{"events", "events"}, {"url", "url"}},
                                    [&] { return manage::add_endpoint(o.ctx, actor, url, events); });
  std::printf("secret %s\n", added.secret.c_str());
  std::printf("endpoint %lld\n", added.endpoint.id);
  return 0;
}

int cmd_webhook_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  const long long site_id = args.required_integer("site");
  ManageEnv o(config_path);
  return print_listing(manage::list_endpoints(o.ctx, o.act_on(site_id)), "no webhook endpoints",
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
  ManageEnv o(config_path);
  const auto rotated = manage::rotate_endpoint_secret(o.ctx, endpoint_actor(o, id), id);
  std::printf("secret %s\n", rotated.secret.c_str());
  std::fprintf(stderr, "svc-admin: the old secret signs beside the new one for %lld s\n",
               o.env.config.webhooks.secret_overlap_seconds);
  return 0;
}

int cmd_webhook_delete(const Args& args, const std::string& config_path) {
  const long long id = endpoint_id(args, "delete");
  ManageEnv o(config_path);
  manage::delete_endpoint(o.ctx, endpoint_actor(o, id), id);
  std::printf("webhook endpoint %lld deleted\n", id);
  return 0;
}

int cmd_webhook_deliveries(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "limit", "endpoint", "cursor"});
  const long long site_id = args.required_integer("site");
  const long long limit = args.integer("limit", 50);
  if (limit < 1 || limit > 10000) throw UsageError("--limit expects 1 to 10000");
  ManageEnv o(config_path);
  const auto page = manage::deliveries_page(o.ctx, o.act_on(site_id), args.integer("endpoint", 0),
                                            args.get("cursor").value_or(""), static_cast<int>(limit));
  print_listing(page.rows, "no webhook deliveries",
                "id\tendpoint\twebhook-id\ttype\tstatus\tattempts\tlast status\tnext attempt\tlast error",
                [](const db::WebhookDeliveryListing& d) {
                  std::printf("%lld\t%lld\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", d.id, d.endpoint_id, d.msg_id.c_str(),
                              d.event_type.c_str(), d.status.c_str(), d.attempts, d.last_status,
                              readable_time(d.next_attempt_at).c_str(), core::mask_controls(d.last_error).c_str());
                });
  if (!page.next_cursor.empty()) std::printf("more: --cursor %s\n", page.next_cursor.c_str());
  return 0;
}

}  // namespace svc::admin
