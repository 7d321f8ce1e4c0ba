#include "auth/handlers.hpp"
#include "auth/lookup/folder_cache.hpp"
#include "auth/tokens/access_tokens.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/site_auth.hpp"
#include "http/site_cache.hpp"
#include "http/validate.hpp"

namespace svc::auth {
namespace {

// The auth table of a bearer access token of `user_id`, checked as the
// site's backend would (auth/tokens/access_tokens.hpp: its audience, not issued for
// another application): the table whose user svc_related links must name
// (issue 22: ids overlap between tables). nullopt without such a token, or
// when its table is not one of [auth] tables.
std::optional<db::TableName> bearer_token_table(const http::Request& request, core::Context& ctx, long long user_id,
                                                const db::Site& site) {
  std::string_view header = request.header("authorization");
  if (header.size() <= 7 || core::ascii_lower(header.substr(0, 7)) != "bearer ") return std::nullopt;
  auto bearer = verify_bearer(header.substr(7), site, ctx);
  if (!bearer || bearer->user_id != user_id) return std::nullopt;
  return db::allowlisted(bearer->table, ctx.config.auth.tables);
}

// Whose folders a caller may read, as the auth table of `user_id`; nullopt =
// nobody's. [auth] folder_limits_auth = token_or_site_key: the user's own
// access token (its table), or a backend call from the application itself
// (site-id = appID with its x-site-key; the default auth table). A keyless
// site has no key to prove, so only the token path is open for it. "none":
// the default auth table for anyone.
std::optional<db::TableName> folder_reader_table(const http::Request& request, core::Context& ctx, long long user_id,
                                                 const db::Site& site) {
  const auto& tables = ctx.config.auth.tables;
  auto default_table = db::allowlisted(tables.front(), tables);
  if (ctx.config.auth.folder_limits_auth == "none") return default_table;
  if (auto table = bearer_token_table(request, ctx, user_id, site)) return table;
  std::string_view header = request.header("site-id");
  if (header.empty()) header = request.header("x-site-id");
  if (core::parse_id(header) == site.id && http::site_key_matches(request, site)) return default_table;
  return std::nullopt;
}

}  // namespace

http::Response get_folder_limits(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto app_id = fields.required_id("appID");
  auto table_name = fields.required_string("table", 64);
  auto user_id = fields.required_id("userId");
  std::optional<db::TableName> table;
  if (table_name) {
    table = db::allowlisted(*table_name, ctx.config.auth.folder_tables);
    if (!table) fields.add("table", "table is not an allowed folder table");
  }
  fields.throw_if_errors();
  auto site = http::find_site(ctx, *app_id);
  if (!site || !site->active) throw http::ApiError::validation("appID", "appID does not name an application");
  auto users = folder_reader_table(request, ctx, *user_id, *site);
  if (!users) throw http::ApiError::failed(401, "Unauthorized");

  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("data");
  for (long long id : linked_folders_recent(ctx, *table, *users, *user_id, site->id)) {
    w.open().kv("linked", id).close();
  }
  w.close_array().close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
