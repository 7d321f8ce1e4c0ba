// /admin/sites/{site}/webhooks: the Webhooks capability (manage/webhooks.hpp).
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "manage/settings.hpp"
#include "manage/webhooks.hpp"
#include "manage_api/body.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

// /admin/sites/{site}/webhooks/{id}...: the endpoint id is segment 4.
constexpr size_t kEndpointSegment = 4;

void write_endpoint(http::JsonWriter& w, const db::WebhookEndpoint& e) {
  w.open().kv("id", e.id).kv("url", e.url).open_array("events");
  for (const auto& event : manage::split_list(e.events)) w.s(event);
  w.close_array().kv("enabled", e.enabled);
  write_nullable(w, "disabled_reason", e.enabled ? "" : e.disabled_reason);
  w.kv("failures", e.failures);
  write_time(w, "last_success_at", e.last_success_at);
  write_time(w, "last_failure_at", e.last_failure_at);
  write_time(w, "previous_secret_until", e.previous_until);
  write_time(w, "created_at", e.created_at);
  w.close();
}

http::Response endpoint_reply(const db::WebhookEndpoint& e, const std::string& secret = "") {
  http::JsonWriter w;
  success(w);
  w.key("endpoint");
  write_endpoint(w, e);
  if (!secret.empty()) w.kv("secret", secret);
  return reply(w);
}

}  // namespace

http::Response webhooks_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  http::JsonWriter w;
  success(w);
  w.open_array("endpoints");
  for (const auto& e : manage::list_endpoints(ctx, actor)) write_endpoint(w, e);
  w.close_array();
  return reply(w);
}

http::Response webhook_add(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  only_members(request.json, {"url", "events"});
  const auto url = nullable_string(request.json, "url", 2048);
  if (!url || url->empty()) throw http::ApiError::validation("url", "url is required");
  const auto events = optional_strings(request.json, "events", 32, 64);
  if (!events) throw http::ApiError::validation("events", "events is required");
  for (const auto& e : *events) {
    if (e.find(',') != std::string::npos) throw http::ApiError::validation("events", "one event type an item");
  }
  auto added = manage::add_endpoint(ctx, actor, *url, core::join(*events, ","));
  return endpoint_reply(added.endpoint, added.secret);
}

http::Response webhook_update(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  only_members(request.json, {"enabled"});
  const auto enabled = optional_bool(request.json, "enabled");
  if (!enabled) throw http::ApiError::validation("enabled", "The body is {\"enabled\": true|false}");
  return endpoint_reply(manage::set_endpoint_enabled(ctx, actor, path_id(request, kEndpointSegment), *enabled));
}

http::Response webhook_rotate_secret(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin, Change::kDestructive);
  auto rotated = manage::rotate_endpoint_secret(ctx, actor, path_id(request, kEndpointSegment));
  return endpoint_reply(rotated.endpoint, rotated.secret);
}

http::Response webhook_delete(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin, Change::kDestructive);
  manage::delete_endpoint(ctx, actor, path_id(request, kEndpointSegment));
  http::JsonWriter w;
  success(w);
  return reply(w);
}

http::Response webhook_deliveries(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const int limit = manage::page_limit(query_integer(request, "limit"));
  auto page = manage::deliveries_page(ctx, actor, query_integer(request, "endpoint").value_or(0),
                                      query_param(request, "cursor").value_or(""), limit);
  http::JsonWriter w;
  success(w);
  w.open_array("deliveries");
  for (const auto& d : page.rows) {
    w.open()
        .kv("id", d.id)
        .kv("endpoint_id", d.endpoint_id)
        .kv("webhook_id", d.msg_id)
        .kv("type", d.event_type)
        .kv("status", d.status)
        .kv("attempts", d.attempts);
    if (d.last_status > 0) {
      w.kv("last_status", d.last_status);
    } else {
      w.kv_null("last_status");
    }
    w.kv("last_error", d.last_error);
    write_time(w, "created_at", d.created_at);
    write_time(w, "next_attempt_at", d.status == "pending" ? d.next_attempt_at : 0);
    w.close();
  }
  w.close_array();
  write_next(w, page.next_cursor);
  return reply(w);
}

}  // namespace svc::manage_api
