#include "auth/app_id.hpp"

#include "db/user_repo.hpp"
#include "http/site_cache.hpp"

namespace svc::auth {

std::optional<long long> optional_app_id(http::Fields& fields, core::Context& ctx) {
  auto id = fields.optional_id("appID");
  if (!id) return fields.has_error("appID") ? std::nullopt : std::optional<long long>(0);
  auto site = http::find_site(ctx, *id);
  if (!site || !site->active) {
    fields.add("appID", "appID does not name an application");
    return std::nullopt;
  }
  return id;
}

long long user_pool(core::Context& ctx, long long app_id) {
  if (app_id <= 0) return db::kDefaultPool;
  auto site = http::find_site(ctx, app_id);
  return site ? site->user_pool : db::kDefaultPool;
}

}  // namespace svc::auth
