#include "auth/handlers.hpp"
#include "config/config.hpp"
#include "db/folder_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/site_cache.hpp"
#include "http/validate.hpp"

namespace svc::auth {

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

  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("data");
  for (long long id : db::FolderRepo(ctx.db, *table).linked_folders(*user_id, site->id)) {
    w.open().kv("linked", id).close();
  }
  w.close_array().close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
