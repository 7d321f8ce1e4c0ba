// /admin/sites/{site}/users: the Users capability (manage/users.hpp).
#include "auth/session/device.hpp"
#include "http/validate.hpp"
#include "manage/users.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

// /admin/sites/{site}/users/{id}...: the user id is segment 4.
constexpr size_t kUserSegment = 4;

db::TableName table_of(const http::Request& request, core::Context& ctx) {
  return manage::users_table(ctx, query_param(request, "table"));
}

// An admin's change to the user of the path: `change(w, actor, table, id)`
// writes what the reply holds beside "status":"Success".
template <class Fn>
http::Response change_user(const http::Request& request, core::Context& ctx, Change kind, Fn&& change) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin, kind);
  const db::TableName table = table_of(request, ctx);
  const long long id = path_id(request, kUserSegment);
  http::JsonWriter w;
  success(w);
  change(w, actor, table, id);
  return reply(w);
}

}  // namespace

http::Response users_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const db::TableName table = table_of(request, ctx);
  const std::string prefix = query_param(request, "q").value_or("");
  if (prefix.size() > 254) throw http::ApiError::validation("q", "q must be at most 254 bytes");
  const int limit = manage::page_limit(query_integer(request, "limit"));
  auto page = manage::list_users(ctx, actor, table, prefix, query_param(request, "cursor").value_or(""), limit);
  http::JsonWriter w;
  success(w);
  w.open_array("users");
  for (const auto& user : page.rows) write_user(w, user);
  w.close_array();
  write_next(w, page.next_cursor);
  return reply(w);
}

http::Response user_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const db::TableName table = table_of(request, ctx);
  const manage::UserDetail d = manage::show_user(ctx, actor, table, path_id(request, kUserSegment));
  http::JsonWriter w;
  success(w);
  w.open("user")
      .kv("id", d.user.id)
      .kv("email", d.user.email)
      .kv("first_name", d.user.first_name)
      .kv("last_name", d.user.last_name)
      .kv("role", d.user.role)
      .kv("active", d.user.active)
      .kv("email_verified", d.user.email_verified)
      .kv("totp", d.totp)
      .kv("recovery_codes_left", d.recovery_codes_left);
  write_time(w, "last_sign_in", d.last_sign_in);
  w.open_array("passkeys");
  for (const auto& key : d.passkeys) {
    w.open().kv("id", key.id).kv("name", key.name).kv("synced", key.backup_eligible);
    write_time(w, "created_at", key.created_at);
    write_time(w, "last_used_at", key.last_used_at);
    w.close();
  }
  w.close_array().open_array("sessions");
  for (const auto& s : d.sessions) {
    w.open().kv("id", s.id).kv("site", s.site_id).kv("device", auth::device_name(s.user_agent)).kv("ip", s.ip);
    write_time(w, "signed_in_at", s.auth_time);
    write_time(w, "last_seen_at", s.last_seen_at);
    w.close();
  }
  // Upstream identities (design "Upstream sign-in") are listed here once
  // sites have providers; none can be linked yet.
  w.close_array().open_array("identities").close_array().close();
  return reply(w);
}

http::Response user_update(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  const db::TableName table = table_of(request, ctx);
  const long long id = path_id(request, kUserSegment);
  const auto active = request.json.FindMember("active");
  if (active == request.json.MemberEnd() || !active->value.IsBool() || request.json.MemberCount() != 1) {
    throw http::ApiError::validation("active", "The body is {\"active\": true|false}");
  }
  db::User user = manage::set_user_active(ctx, actor, table, id, active->value.GetBool());
  http::JsonWriter w;
  success(w);
  w.key("user");
  write_user(w, user);
  return reply(w);
}

http::Response user_sessions_end(const http::Request& request, core::Context& ctx) {
  return change_user(request, ctx, Change::kAny,
                     [&](http::JsonWriter& w, const auto& actor, const auto& table, long long id) {
                       w.kv("ended", manage::end_user_sessions(ctx, actor, table, id));
                     });
}

http::Response user_create(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  const db::TableName table = table_of(request, ctx);
  http::Fields fields(request.json);
  auto email = fields.required_string("email", 254);
  auto first = fields.optional_string("first_name", 1024);
  auto last = fields.optional_string("last_name", 1024);
  auto role = fields.optional_string("role", 64);
  fields.throw_if_errors();
  manage::Invitation invitation;
  invitation.email = *email;
  invitation.first_name = first.value_or("");
  invitation.last_name = last.value_or("");
  invitation.role = role.value_or("user");
  const db::User user = manage::invite_user(ctx, actor, table, invitation);
  http::JsonWriter w;
  success(w);
  w.key("user");
  write_user(w, user);
  return reply(w, 201);
}

http::Response user_delete(const http::Request& request, core::Context& ctx) {
  return change_user(request, ctx, Change::kDestructive,
                     [&](http::JsonWriter&, const auto& actor, const auto& table, long long id) {
                       manage::delete_user(ctx, actor, table, id);
                     });
}

http::Response user_second_factor_reset(const http::Request& request, core::Context& ctx) {
  return change_user(request, ctx, Change::kAny,
                     [&](http::JsonWriter& w, const auto& actor, const auto& table, long long id) {
                       w.kv("removed", manage::reset_second_factor(ctx, actor, table, id));
                     });
}

http::Response user_password_reset(const http::Request& request, core::Context& ctx) {
  return change_user(request, ctx, Change::kAny,
                     [&](http::JsonWriter&, const auto& actor, const auto& table, long long id) {
                       manage::send_password_reset(ctx, actor, table, id);
                     });
}

http::Response user_verification_resend(const http::Request& request, core::Context& ctx) {
  return change_user(request, ctx, Change::kAny,
                     [&](http::JsonWriter&, const auto& actor, const auto& table, long long id) {
                       manage::resend_verification(ctx, actor, table, id);
                     });
}

}  // namespace svc::manage_api
