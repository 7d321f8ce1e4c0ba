#include "push/push_service.hpp"

#include <optional>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "crypto/encoding.hpp"
#include "crypto/sealed_id.hpp"
#include "crypto/vapid.hpp"
#include "crypto/webpush.hpp"
#include "db/customer_repo.hpp"
#include "metrics/outbound_slots.hpp"
#include "push/push_client.hpp"
#include "push/vapid_key_cache.hpp"

namespace svc::push {
namespace {

PushAttempt failed(std::string reason) { return {false, std::move(reason)}; }

// The request for subscription `sub`, or the reason it cannot be built (the
// stored keys do not decode, or the site's VAPID setup is unusable).
struct Prepared {
  std::optional<PushRequest> request;
  std::string reason;
};

Prepared prepare(core::Context& ctx, const db::Site& site, const db::PushSubscription& sub, const CustomerPush& message,
                 long long now) {
  auto vapid_public = crypto::base64url_decode(site.vapid_public_key);
  auto signer = vapid_public ? process_vapid_keys().signer(site) : std::nullopt;
  if (!signer) return {std::nullopt, "site has no VAPID keys (svc-admin vapid-keys)"};
  auto ua_public = crypto::base64url_decode(sub.p256dh);
  auto auth_secret = crypto::base64url_decode(sub.auth);
  auto body =
      ua_public && auth_secret ? crypto::encrypt_push_payload(message.payload, *ua_public, *auth_secret) : std::nullopt;
  if (!body) return {std::nullopt, "stored subscription keys are invalid"};
  auto origin = crypto::endpoint_origin(sub.endpoint);
  // RFC 8292: exp at most 24 h ahead; 12 h leaves room for clock skew.
  auto jwt = origin ? signer->jwt(*origin, site.vapid_subject, now + 12 * 3600) : std::nullopt;
  if (!jwt) return {std::nullopt, "cannot sign VAPID token (endpoint or vapid_subject invalid)"};

  PushRequest req;
  req.endpoint = sub.endpoint;
  req.body = *body;
  req.authorization = crypto::vapid_authorization_header(*jwt, *vapid_public);
  req.ttl_seconds = static_cast<long>(ctx.config.push.ttl);
  req.urgency = ctx.config.push.urgency;
  req.topic = message.topic;
  return {std::move(req), ""};
}

}  // namespace

PushAttempt push_to_customer(core::Context& ctx, const db::Site& site, const CustomerPush& message) {
  auto customer = crypto::open_id(message.customer_token, crypto::IdPurpose::Customer, ctx.config.keys.id_key);
  if (!customer) return failed("customerID does not decrypt");
  const long long now = ctx.clock.now();
  if (customer->exp <= now) return failed("customerID expired");
  db::CustomerRepo customers(ctx.db);
  auto sub = customers.subscription(customer->id, site.id);
  if (!sub) return failed("no push subscription for customer " + std::to_string(customer->id));
  Prepared prepared = prepare(ctx, site, *sub, message, now);
  if (!prepared.request) return failed(prepared.reason);

  // Only now does the request wait on the push service: at most
  // [outbound] per_site of them per site across the workers; the rest are
  // answered at once instead of queueing behind a slow endpoint.
  metrics::OutboundHold hold(site.id, ctx.config.outbound.per_site);
  if (!hold.granted()) {
    core::LogLine("warn", "outbound_cap_reached")
        .str("call", "push")
        .num("site_id", site.id)
        .num("per_site", ctx.config.outbound.per_site)
        .emit();
    return failed("[outbound] per_site concurrent pushes of this site already in flight");
  }
  PushResult result = ctx.push.send(*prepared.request);
  switch (result.outcome) {
    case PushOutcome::Delivered:
      return {true, ""};
    case PushOutcome::Gone:
      customers.clear_subscription(customer->id, site.id);
      return failed("subscription gone (HTTP " + std::to_string(result.http_status) + "), cleared");
    default:
      // Its own event (docs/operations.md); the handler's push_failed line follows.
      core::LogLine("warn", "push_service_error")
          .num("site_id", site.id)
          .num("http_status", result.http_status)
          .str("error", result.detail)
          .emit();
      return failed("push service: HTTP " + std::to_string(result.http_status) + " " + result.detail);
  }
}

}  // namespace svc::push
