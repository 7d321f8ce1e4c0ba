#include "http/site_cache.hpp"

#include "core/clock.hpp"

namespace svc::http {

std::optional<db::Site> find_site(core::Context& ctx, long long id) {
  return core::read_through<long long, db::Site>(ctx.site_cache, id, ctx.clock.now(),
                                                 [&] { return db::SiteRepo(ctx.db).find(id); });
}

}  // namespace svc::http
