#pragma once
// The Webhooks capability of site management (design "Site administrators
// and the site management API"): a site's endpoints (docs/webhooks.md) and
// their deliveries, for /admin/sites/{site}/webhooks and `svc-admin webhook
// add|list|disable|enable|rotate-secret|delete|deliveries`. An endpoint of
// another site is not found (404 "Endpoint not found"), never touched.

#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/webhook_repo.hpp"
#include "manage/actor.hpp"
#include "manage/page.hpp"

namespace svc::manage {

// An endpoint with its secret shown once (whsec_...), as add and
// rotate-secret return it.
struct EndpointWithSecret {
  db::WebhookEndpoint endpoint;  // its sealed secrets cleared
  std::string secret;
};

// The site's endpoints, oldest first, without their secrets. Any role.
std::vector<db::WebhookEndpoint> list_endpoints(core::Context& ctx, const Actor& actor);
// One endpoint of the site, without its secrets; 404 for any other id. Any role.
db::WebhookEndpoint find_endpoint(core::Context& ctx, const Actor& actor, long long id);

// Subscribes `url` to `events` ("a,b,c", every one a known event type):
// 400 naming "events" for an unknown or empty list, "url" when the SSRF
// guard refuses it (https only, no private, loopback or reserved address:
// webhooks::url_problem); audit "webhooks.add". Role admin.
EndpointWithSecret add_endpoint(core::Context& ctx, const Actor& actor, const std::string& url,
                                const std::string& events);
// Disables or enables (enabling clears the failure count); audit
// "webhooks.disable" / "webhooks.enable". Role admin.
db::WebhookEndpoint set_endpoint_enabled(core::Context& ctx, const Actor& actor, long long id, bool enabled);
// A new secret; the old one signs beside it for [webhooks]
// secret_overlap_seconds; audit "webhooks.rotate_secret". Role admin.
EndpointWithSecret rotate_endpoint_secret(core::Context& ctx, const Actor& actor, long long id);
// The endpoint goes, its pending deliveries are dropped; audit
// "webhooks.delete". Role admin.
void delete_endpoint(core::Context& ctx, const Actor& actor, long long id);

// A page of the site's deliveries (of endpoint `endpoint_id` when not 0:
// 404 when it is not the site's), newest first. Any role.
Page<db::WebhookDeliveryListing> deliveries_page(core::Context& ctx, const Actor& actor, long long endpoint_id,
                                                 const std::string& cursor, int limit);

// The site of endpoint `id`, for svc-admin's commands that name only the
// endpoint; 404 "Endpoint not found" when there is none.
long long endpoint_site(core::Context& ctx, long long id);

}  // namespace svc::manage
