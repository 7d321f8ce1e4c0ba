#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "db/table_name.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "messaging/handlers.hpp"
#include "messaging/locale.hpp"
#include "messaging/notification_service.hpp"

namespace svc::messaging {

MergeValues values_from(const rapidjson::Value* data) {
  MergeValues out;
  if (!data) return out;
  for (auto it = data->MemberBegin(); it != data->MemberEnd(); ++it) {
    const auto& v = it->value;
    std::string key(it->name.GetString(), it->name.GetStringLength());
    if (v.IsString())
      out[key] = std::string(v.GetString(), v.GetStringLength());
    else if (v.IsBool())
      out[key] = v.GetBool() ? "true" : "false";
    else if (v.IsNull())
      out[key] = "";
    else if (v.IsNumber()) {
      rapidjson::StringBuffer b;
      rapidjson::Writer<rapidjson::StringBuffer> w(b);
      v.Accept(w);
      out[key] = b.GetString();
    }
  }
  return out;
}

namespace {

http::Response failed(const char* message) {
  return http::Response::json(200, http::ApiError::failed(200, message).body());
}

}  // namespace

http::Response notification(const http::Request& request, core::Context& ctx, const db::Site& site) {
  http::Fields fields(request.json);
  auto event = fields.required_string("event", 190);
  auto email = fields.optional_string("email", 2048);
  auto table = fields.optional_string("table", 64);
  auto master_id = fields.optional_id("master_id");
  const rapidjson::Value* data = fields.optional_object("data");
  auto sql_field = fields.optional_string("SQL", 16384);
  auto email_field = fields.optional_string("setEmailField", 190);
  auto locale = fields.optional_string("locale", 35);
  if (locale && !is_locale_shape(*locale))
    fields.add("locale", "locale must be a BCP 47 language tag such as de or de-AT");
  if (table && !db::is_plain_identifier(*table)) fields.add("table", "table must be a plain table name");
  fields.throw_if_errors();

  Notification n;
  n.event = *event;
  n.email = email.value_or("");
  n.email_field = email_field;
  n.table = table.value_or("");
  n.master_id = master_id.value_or(0);
  n.data = values_from(data);
  n.sql = sql_field.value_or("");
  n.locale = locale ? normalize_locale(*locale) : "";
  n.request_id = request.request_id;
  switch (notify(ctx, site, n)) {
    case NotifyOutcome::Queued:
      return http::Response::json(200, R"({"status":"Success"})");
    case NotifyOutcome::Disabled:
      return failed("Notifications are disabled");
    case NotifyOutcome::NoTemplate:
      return failed("Notification event not found or disabled");
    case NotifyOutcome::NoRecipient:
      break;
  }
  return failed("No recipient");
}

}  // namespace svc::messaging
