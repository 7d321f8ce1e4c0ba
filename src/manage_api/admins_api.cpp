// /admin/sites/{site}, /admins and /audit: the site as its admin sees it,
// its administrators (manage/admins.hpp) and its audit (manage/audit.hpp).
#include "http/site_cache.hpp"
#include "http/validate.hpp"
#include "manage/admins.hpp"
#include "manage/audit.hpp"
#include "manage/users.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

void write_admin(http::JsonWriter& w, const db::SiteAdmin& a) {
  w.open().kv("user_id", a.user_id).kv("email", a.email).kv("role", a.role);
  write_time(w, "granted_at", a.granted_at);
  w.close();
}

}  // namespace

http::Response site_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  auto site = http::find_site(ctx, actor.site_id);
  http::JsonWriter w;
  success(w);
  w.open("site").kv("id", site->id).kv("name", site->name).kv("user_pool", site->user_pool).close();
  w.open("me").kv("user_id", actor.user_id).kv("email", actor.email).kv("role", manage::role_name(actor.role)).close();
  return reply(w);
}

http::Response admins_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  auto admins = manage::list_admins(ctx, actor, manage::users_table(ctx, actor.auth_table));
  http::JsonWriter w;
  success(w);
  w.open_array("admins");
  for (const auto& a : admins) write_admin(w, a);
  w.close_array();
  return reply(w);
}

http::Response admin_add(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kOwner);
  http::Fields fields(request.json);
  auto email = fields.required_string("email", 254);
  auto role_text = fields.required_string("role", 16);
  auto role = role_text ? manage::parse_role(*role_text) : std::nullopt;
  if (role_text && !role) fields.add("role", "role must be owner, admin or viewer");
  fields.throw_if_errors();
  auto granted = manage::add_admin(ctx, actor, manage::users_table(ctx, actor.auth_table), *email, *role);
  http::JsonWriter w;
  success(w);
  w.key("admin");
  write_admin(w, granted);
  return reply(w);
}

http::Response admin_remove(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kOwner, Change::kDestructive);
  manage::remove_admin(ctx, actor, manage::users_table(ctx, actor.auth_table), path_id(request, 4));
  http::JsonWriter w;
  success(w);
  return reply(w);
}

http::Response audit_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const int limit = manage::page_limit(query_integer(request, "limit"));
  auto page = manage::audit_page(ctx, actor, query_param(request, "cursor").value_or(""), limit);
  http::JsonWriter w;
  success(w);
  w.open_array("entries");
  for (const auto& e : page.rows) {
    w.open()
        .kv("id", e.id)
        .kv("actor", e.actor)
        .kv("action", e.action)
        .kv("target", e.target)
        .kv("detail", e.detail)
        .kv("ip", e.ip);
    write_time(w, "created_at", e.created_at);
    w.close();
  }
  w.close_array();
  write_next(w, page.next_cursor);
  return reply(w);
}

}  // namespace svc::manage_api
