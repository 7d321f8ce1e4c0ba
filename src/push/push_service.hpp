#pragma once
// The service behind POST /message/sendPush: one Web Push message from a
// site to one of its customers' stored browser subscription.

#include <string>

#include "core/context.hpp"
#include "db/site_repo.hpp"

namespace svc::push {

struct CustomerPush {
  std::string customer_token;  // sealed customer id (crypto::open_id, IdPurpose::Customer)
  std::string payload;         // the JSON text to encrypt, at most crypto::kMaxPushPayload bytes
  std::string topic;           // "" = none; else at most 32 URL-safe base64 characters
};

// delivered, or why not. `reason` is for the log only: the API's failure
// reply carries no message.
struct PushAttempt {
  bool delivered = false;
  std::string reason;
};

// Opens the customer token (it must not have expired by ctx.clock), finds
// the customer's subscription for `site`, encrypts the payload for it
// (RFC 8291), signs a VAPID token with the site's keys (RFC 8292) and sends
// it through ctx.push with [push] ttl and urgency. When the push service
// answers that the subscription is gone (404/410), the stored subscription
// is cleared. Never throws for an expected failure (bad token, no
// subscription, no VAPID keys, push service refusal): those are results.
PushAttempt push_to_customer(core::Context& ctx, const db::Site& site, const CustomerPush& message);

}  // namespace svc::push
