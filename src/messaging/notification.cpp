#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "config/config.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "db/merge_repo.hpp"
#include "db/notification_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "messaging/handlers.hpp"
#include "messaging/outbox.hpp"
#include "messaging/address.hpp"
#include "messaging/template.hpp"

namespace svc::messaging {
namespace {

// Scalars become text; nested objects and arrays are not merge values.
MergeValues values_from(const rapidjson::Value* data) {
  MergeValues out;
  if (!data) return out;
  for (auto it = data->MemberBegin(); it != data->MemberEnd(); ++it) {
    const auto& v = it->value;
    std::string key(it->name.GetString(), it->name.GetStringLength());
    if (v.IsString()) out[key] = std::string(v.GetString(), v.GetStringLength());
    else if (v.IsBool()) out[key] = v.GetBool() ? "true" : "false";
    else if (v.IsNull()) out[key] = "";
    else if (v.IsNumber()) {
      rapidjson::StringBuffer b;
      rapidjson::Writer<rapidjson::StringBuffer> w(b);
      v.Accept(w);
      out[key] = b.GetString();
    }
  }
  return out;
}

// The SQL field: the name of one of the site's merge queries, or (only when
// the site has allow_sql_merge and a read-only account is configured) a
// SELECT to run as is. Anything else is a validation error on SQL.
MergeValues run_sql_field(const std::string& sql_field, long long master_id, const MergeValues& data,
                          core::Context& ctx, const db::Site& site, const http::Request& request) {
  auto named = db::MergeRepo(ctx.db).find_named(site.id, sql_field);
  if (!named && (!site.allow_sql_merge || !ctx.merge_db)) {
    throw http::ApiError::validation("SQL", "SQL must name a merge query of this site");
  }
  std::map<std::string, std::string> params = data;
  params["master_id"] = master_id > 0 ? std::to_string(master_id) : "";
  params["site_id"] = std::to_string(site.id);
  db::Database& db = ctx.merge_db ? *ctx.merge_db : ctx.db;
  try {
    return db::run_merge_select(db, named ? *named : sql_field, params, ctx.config.merge.statement_timeout_ms);
  } catch (const db::MergeQueryError& e) {
    core::LogLine("warn", "merge_query_failed").str("request_id", request.request_id).num("site_id", site.id)
        .str("error", e.what()).emit();
    throw http::ApiError::validation("SQL", "SQL query failed");
  }
}

std::string user_email(core::Context& ctx, long long user_id) {
  if (user_id <= 0) return "";
  static const std::vector<std::string> kUsers{"svc_users"};
  auto user = db::UserRepo(ctx.db, *db::allowlisted("svc_users", kUsers)).find_by_id(user_id);
  return user ? core::strip_controls(user->email) : "";
}

// Validated, CR/LF-free addresses of a comma/semicolon list; throws a
// validation error on `field` for an invalid one.
std::vector<std::string> addresses(const std::string& list, const char* field) {
  std::vector<std::string> out;
  for (auto& a : split_addresses(core::strip_controls(list))) {
    if (!http::is_valid_email(a)) throw http::ApiError::validation(field, std::string(field) + " holds an invalid e-mail address");
    out.push_back(a);
  }
  return out;
}

std::string join(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& a : list) out += (out.empty() ? "" : ",") + a;
  return out;
}

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
  if (table && !db::is_plain_identifier(*table)) fields.add("table", "table must be a plain table name");
  fields.throw_if_errors();

  if (site.disable_email) return failed("Notifications are disabled");
  auto tmpl = db::NotificationRepo(ctx.db).find_enabled(site.id, *event);
  if (!tmpl) return failed("Notification event not found or disabled");

  MergeValues values = values_from(data);
  if (sql_field && !sql_field->empty()) {
    for (auto& [k, v] : run_sql_field(*sql_field, master_id.value_or(0), values, ctx, site, request)) values[k] = v;
  }

  std::string to_list = email.value_or("");
  const char* to_field = "email";
  if (to_list.empty() && email_field) {
    auto it = values.find(*email_field);
    to_list = it == values.end() ? "" : it->second;
    to_field = "setEmailField";
  }
  bool bcc_only = to_list == "NONE";
  std::vector<std::string> to = bcc_only ? std::vector<std::string>{} : addresses(to_list, to_field);
  std::vector<std::string> cc = addresses(user_email(ctx, site.email_cc), "email_cc");
  std::vector<std::string> bcc = addresses(user_email(ctx, site.email_bcc), "email_bcc");
  for (auto& a : addresses(tmpl->bcc, "bcc")) bcc.push_back(a);
  if (to.empty() && (!bcc_only || bcc.empty())) return failed("No recipient");
  if (join(to).size() > 2048) throw http::ApiError::validation(to_field, "too many recipients (2048 bytes at most)");

  db::OutboxEntry entry;
  entry.site_id = site.id;
  entry.notification_id = tmpl->id;
  entry.event = *event;
  entry.recipient = join(to);
  entry.from = core::strip_controls(tmpl->from.empty() ? site.email_from : tmpl->from);
  entry.cc = join(cc);
  entry.bcc = join(bcc);
  // The subject column (and RFC 5322's line limit) holds 998 bytes.
  entry.subject = core::utf8_clean(merge_plain_line(tmpl->subject, values), 998);
  entry.body = merge_html(tmpl->content, values);
  entry.table_name = table.value_or("");
  entry.record_id = master_id.value_or(0);
  entry.request_id = request.request_id;
  enqueue(ctx, entry);
  return http::Response::json(200, R"({"status":"Success"})");
}

}  // namespace svc::messaging
