#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "crypto/encoding.hpp"
#include "crypto/sealed_id.hpp"
#include "crypto/vapid.hpp"
#include "crypto/webpush.hpp"
#include "db/customer_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"
#include "push/handlers.hpp"
#include "push/push_client.hpp"

namespace svc::push {
namespace {

// The spec's failure reply carries no message; the reason goes to the log.
http::Response push_error(const http::Request& request, const db::Site& site, const std::string& reason) {
  core::LogLine("warn", "push_failed").str("request_id", request.request_id).num("site_id", site.id)
      .str("reason", reason).emit();
  return http::Response::json(200, R"({"status":"Error"})");
}

std::string payload_json(const std::string& title, const std::string& message, const rapidjson::Value* data) {
  http::JsonWriter w;
  w.open().kv("title", title).kv("message", message);
  if (data) {
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> dw(b);
    data->Accept(dw);
    w.kv_raw("data", std::string_view(b.GetString(), b.GetSize()));
  } else {
    w.open("data").close();
  }
  w.close();
  return w.str();
}

bool plain_topic(const std::string& t) {
  if (t.empty() || t.size() > 32) return false;
  return t.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos;
}

}  // namespace

http::Response send_push(const http::Request& request, core::Context& ctx, const db::Site& site) {
  http::Fields fields(request.json);
  auto customer_token = fields.required_string("customerID", 1024);
  auto title = fields.optional_string("title", crypto::kMaxPushPayload);
  auto message = fields.required_string("message", 1 << 20);
  const rapidjson::Value* data = fields.optional_object("data");
  auto topic = fields.optional_string("topic", 64);
  if (topic && !plain_topic(*topic)) fields.add("topic", "topic must be at most 32 URL-safe base64 characters");
  fields.throw_if_errors();
  std::string payload = payload_json(title.value_or("Notification"), *message, data);
  if (payload.size() > crypto::kMaxPushPayload) {
    throw http::ApiError::validation("message", "title, message and data together exceed the 3993-byte push limit");
  }

  auto customer = crypto::open_id(*customer_token, crypto::IdPurpose::Customer, ctx.config.keys.id_key);
  if (!customer) return push_error(request, site, "customerID does not decrypt");
  const long long now = ctx.clock.now();
  if (customer->exp <= now) return push_error(request, site, "customerID expired");
  db::CustomerRepo customers(ctx.db);
  auto sub = customers.subscription(customer->id, site.id);
  if (!sub) return push_error(request, site, "no push subscription for customer " + std::to_string(customer->id));
  auto vapid_public = crypto::base64url_decode(site.vapid_public_key);
  auto vapid_private = crypto::base64url_decode(site.vapid_private_key);
  if (!vapid_public || !vapid_private) return push_error(request, site, "site has no VAPID keys (svc-admin vapid-keys)");

  auto ua_public = crypto::base64url_decode(sub->p256dh);
  auto auth_secret = crypto::base64url_decode(sub->auth);
  auto body = ua_public && auth_secret ? crypto::encrypt_push_payload(payload, *ua_public, *auth_secret) : std::nullopt;
  if (!body) return push_error(request, site, "stored subscription keys are invalid");
  auto origin = crypto::endpoint_origin(sub->endpoint);
  crypto::VapidKeys keys{*vapid_private, *vapid_public};
  // RFC 8292: exp at most 24 h ahead; 12 h leaves room for clock skew.
  auto jwt = origin ? crypto::vapid_jwt(*origin, site.vapid_subject, now + 12 * 3600, keys) : std::nullopt;
  if (!jwt) return push_error(request, site, "cannot sign VAPID token (endpoint or vapid_subject invalid)");

  PushRequest req;
  req.endpoint = sub->endpoint;
  req.body = *body;
  req.authorization = crypto::vapid_authorization_header(*jwt, *vapid_public);
  req.ttl_seconds = static_cast<long>(ctx.config.push.ttl);
  req.urgency = ctx.config.push.urgency;
  req.topic = topic.value_or("");
  PushResult result = ctx.push.send(req);
  switch (result.outcome) {
    case PushOutcome::Delivered:
      return http::Response::json(200, R"({"status":"Success"})");
    case PushOutcome::Gone:
      customers.clear_subscription(customer->id, site.id);
      return push_error(request, site, "subscription gone (HTTP " + std::to_string(result.http_status) + "), cleared");
    default:
      return push_error(request, site, "push service: HTTP " + std::to_string(result.http_status) + " " + result.detail);
  }
}

}  // namespace svc::push
