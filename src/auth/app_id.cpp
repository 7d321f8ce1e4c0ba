#include "auth/app_id.hpp"

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

}  // namespace svc::auth
