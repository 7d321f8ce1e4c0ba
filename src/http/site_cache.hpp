#pragma once

#include <optional>

#include "core/context.hpp"
#include "core/ttl_cache.hpp"
#include "db/site_repo.hpp"

namespace svc::http {

// The sites of recent requests, per worker, for [server] site_cache_seconds
// (every /message/* request and every getFolderLimits needs its site; an admin
// change reaches each worker within that time). Not thread-safe: one per
// worker process.
class SiteCache : public core::TtlCache<long long, db::Site> {
 public:
  using TtlCache::put;
  using TtlCache::TtlCache;
  void put(const db::Site& site, long long now) { put(site.id, site, now); }
};

// The site with this id (active or not) through ctx.site_cache when there is
// one; nullopt when no such site exists (never cached).
std::optional<db::Site> find_site(core::Context& ctx, long long id);

}  // namespace svc::http
