#include "manage/webhooks.hpp"

#include <stdexcept>

#include "config/config.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "manage/audit.hpp"
#include "webhooks/client.hpp"
#include "webhooks/events.hpp"
#include "webhooks/signature.hpp"

namespace svc::manage {
namespace {

[[noreturn]] void not_found() { throw http::ApiError::failed(404, "Endpoint not found"); }

std::string target_of(long long id) { return "endpoint " + std::to_string(id); }

db::WebhookEndpoint without_secrets(db::WebhookEndpoint e) {
  e.secret.clear();
  e.previous_secret.clear();
  return e;
}

// The endpoint with its sealed secrets, when it is the site's.
db::WebhookEndpoint site_endpoint(core::Context& ctx, const Actor& actor, long long id) {
  auto e = db::WebhookRepo(ctx.db).find_endpoint(id);
  if (!e || e->site_id != actor.site_id) not_found();
  return *e;
}

// A fresh key: its whsec_ form (shown once) and its sealed form (stored).
struct NewSecret {
  std::string shown;   // whsec_…, to the caller once
  std::string sealed;  // to the database
};

NewSecret new_secret(core::Context& ctx, long long site_id) {
  const std::string& webhook_key = ctx.config.keys.webhook_key;
  // The operator's mistake, not the caller's: svc-admin prints it, the API
  // answers 500 and logs it.
  if (webhook_key.empty()) throw std::runtime_error("[keys] webhook_key is not set (svc-admin keygen prints one)");
  const std::string key = webhooks::new_secret_key();
  return {webhooks::format_secret(key), webhooks::seal_secret(key, webhook_key, site_id)};
}

// scheme://host[:port] of an endpoint URL: what the audit names (a path or
// query may carry the receiver's own token).
std::string url_origin(const std::string& url) {
  const size_t start = url.find("://");
  if (start == std::string::npos) return core::mask_controls(url.substr(0, 64));
  return core::mask_controls(url.substr(0, url.find_first_of("/?#", start + 3)));
}

}  // namespace

std::vector<db::WebhookEndpoint> list_endpoints(core::Context& ctx, const Actor& actor) {
  std::vector<db::WebhookEndpoint> out;
  for (auto& e : db::WebhookRepo(ctx.db).endpoints(actor.site_id)) out.push_back(without_secrets(std::move(e)));
  return out;
}

db::WebhookEndpoint find_endpoint(core::Context& ctx, const Actor& actor, long long id) {
  return without_secrets(site_endpoint(ctx, actor, id));
}

EndpointWithSecret add_endpoint(core::Context& ctx, const Actor& actor, const std::string& url,
                                const std::string& events) {
  require_role(actor, Role::kAdmin);
  std::string unknown;
  const auto parsed = webhooks::parse_event_list(events, unknown);
  if (!parsed) {
    throw http::ApiError::validation("events", unknown.empty() ? "events needs at least one event"
                                                               : "unknown event '" + core::mask_controls(unknown) +
                                                                     "' (docs/webhooks.md lists them)");
  }
  if (url.size() > 2048) throw http::ApiError::validation("url", "url must be at most 2048 characters");
  const webhooks::WebhookOptions options{ctx.config.push.allow_insecure_endpoints, ctx.config.push.allowed_ports};
  if (const std::string problem = webhooks::url_problem(url, options); !problem.empty()) {
    throw http::ApiError::validation("url", "url refused: " + problem);
  }
  const NewSecret fresh = new_secret(ctx, actor.site_id);
  const long long id = webhooks::atomically(ctx.db, [&] {
    const long long added = db::WebhookRepo(ctx.db).add_endpoint(actor.site_id, url, *parsed, fresh.sealed);
    audit(ctx, actor, "webhooks.add", target_of(added), url_origin(url) + " events " + *parsed);
    return added;
  });
  return {find_endpoint(ctx, actor, id), fresh.shown};
}

db::WebhookEndpoint set_endpoint_enabled(core::Context& ctx, const Actor& actor, long long id, bool enabled) {
  require_role(actor, Role::kAdmin);
  site_endpoint(ctx, actor, id);
  webhooks::atomically(ctx.db, [&] {
    db::WebhookRepo(ctx.db).set_enabled(id, enabled, actor.is_operator() ? "operator" : "site admin");
    audit(ctx, actor, enabled ? "webhooks.enable" : "webhooks.disable", target_of(id));
    return true;
  });
  return find_endpoint(ctx, actor, id);
}

EndpointWithSecret rotate_endpoint_secret(core::Context& ctx, const Actor& actor, long long id) {
  require_role(actor, Role::kAdmin);
  site_endpoint(ctx, actor, id);
  const NewSecret fresh = new_secret(ctx, actor.site_id);
  const long long overlap = ctx.config.webhooks.secret_overlap_seconds;
  webhooks::atomically(ctx.db, [&] {
    db::WebhookRepo(ctx.db).rotate_secret(id, fresh.sealed, overlap);
    audit(ctx, actor, "webhooks.rotate_secret", target_of(id),
          "the old secret signs beside the new one for " + std::to_string(overlap) + " s");
    return true;
  });
  return {find_endpoint(ctx, actor, id), fresh.shown};
}

void delete_endpoint(core::Context& ctx, const Actor& actor, long long id) {
  require_role(actor, Role::kAdmin);
  const db::WebhookEndpoint e = site_endpoint(ctx, actor, id);
  webhooks::atomically(ctx.db, [&] {
    db::WebhookRepo(ctx.db).delete_endpoint(id);
    audit(ctx, actor, "webhooks.delete", target_of(id), url_origin(e.url));
    return true;
  });
}

Page<db::WebhookDeliveryListing> deliveries_page(core::Context& ctx, const Actor& actor, long long endpoint_id,
                                                 const std::string& cursor, int limit) {
  if (endpoint_id != 0) site_endpoint(ctx, actor, endpoint_id);
  const std::string kind = "webhook deliveries " + std::to_string(endpoint_id);
  const std::string position = read_cursor(ctx, kind, actor.site_id, cursor);
  const long long before = position.empty() ? 0 : std::stoll(position);
  return paged(ctx, kind, actor.site_id,
               db::WebhookRepo(ctx.db).deliveries(actor.site_id, endpoint_id, before, limit + 1), limit,
               [](const db::WebhookDeliveryListing& last) { return std::to_string(last.id); });
}

long long endpoint_site(core::Context& ctx, long long id) {
  auto e = db::WebhookRepo(ctx.db).find_endpoint(id);
  if (!e) not_found();
  return e->site_id;
}

}  // namespace svc::manage
