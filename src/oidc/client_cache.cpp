#include "oidc/client_cache.hpp"

#include "core/clock.hpp"

namespace svc::oidc {

std::optional<db::OAuthClient> find_client(core::Context& ctx, const std::string& client_id) {
  return core::read_through<std::string, db::OAuthClient>(ctx.client_cache, client_id, ctx.clock.now(),
                                                          [&] { return db::OAuthRepo(ctx.db).find_client(client_id); });
}

}  // namespace svc::oidc
