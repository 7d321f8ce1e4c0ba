#include "auth/access_tokens.hpp"
#include "auth/handlers.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "db/folder_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/site_auth.hpp"
#include "http/site_cache.hpp"
#include "http/validate.hpp"

namespace svc::auth {
namespace {

// A bearer access token of `user_id` in the default auth table (the users
// svc_related links to folders), checked as the site's backend would
// (auth/access_tokens.hpp: its audience, not issued for another application).
bool bearer_token_matches(const http::Request& request, core::Context& ctx, long long user_id, const db::Site& site) {
  std::string_view header = request.header("authorization");
  if (header.size() <= 7 || core::ascii_lower(header.substr(0, 7)) != "bearer ") return false;
  auto bearer = verify_bearer(header.substr(7), site, ctx);
  return bearer && bearer->user_id == user_id && bearer->table == ctx.config.auth.tables.front();
}

// [auth] folder_limits_auth = token_or_site_key: the user's own access token,
// or a backend call from the application itself (site-id = appID with its
// x-site-key). A keyless site has no key to prove, so only the token path is
// open for it.
bool may_read_folders(const http::Request& request, core::Context& ctx, long long user_id, const db::Site& site) {
  if (ctx.config.auth.folder_limits_auth == "none") return true;
  if (bearer_token_matches(request, ctx, user_id, site)) return true;
  std::string_view header = request.header("site-id");
  if (header.empty()) header = request.header("x-site-id");
  return core::parse_id(header) == site.id && http::site_key_matches(request, site);
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
  if (!may_read_folders(request, ctx, *user_id, *site)) throw http::ApiError::failed(401, "Unauthorized");

  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("data");
  for (long long id : db::FolderRepo(ctx.db, *table).linked_folders(*user_id, site->id)) {
    w.open().kv("linked", id).close();
  }
  w.close_array().close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
