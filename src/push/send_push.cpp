#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/log.hpp"
#include "crypto/webpush.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"
#include "push/handlers.hpp"
#include "push/push_service.hpp"

namespace svc::push {
namespace {

// Accept recurses once per level of `data`: safe only because the dispatcher
// refused any body nested deeper than core::kMaxJsonDepth.
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

  PushAttempt sent = push_to_customer(ctx, site, {*customer_token, payload, topic.value_or("")});
  if (sent.delivered) return http::Response::json(200, R"({"status":"Success"})");
  // The spec's failure reply carries no message; the reason goes to the log.
  core::LogLine("warn", "push_failed")
      .str("request_id", request.request_id)
      .num("site_id", site.id)
      .str("reason", sent.reason)
      .emit();
  return http::Response::json(200, R"({"status":"Error"})");
}

}  // namespace svc::push
