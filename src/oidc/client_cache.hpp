#pragma once

#include <optional>
#include <string>

#include "core/context.hpp"
#include "core/ttl_cache.hpp"
#include "db/oauth_repo.hpp"

namespace svc::oidc {

// The OAuth clients of recent token and authorization requests, per worker,
// for [server] site_cache_seconds, like the sites they belong to: a secret
// rotation or a deletion reaches every worker within that time (1 s by
// default). Not thread-safe: one per worker process.
class ClientCache : public core::TtlCache<std::string, db::OAuthClient> {
 public:
  using TtlCache::TtlCache;
};

// The client with this id through ctx.client_cache when there is one;
// nullopt when no such client exists (never cached).
std::optional<db::OAuthClient> find_client(core::Context& ctx, const std::string& client_id);

}  // namespace svc::oidc
