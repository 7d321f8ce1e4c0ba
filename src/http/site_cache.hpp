#pragma once

#include <optional>
#include <unordered_map>

#include "core/context.hpp"
#include "db/site_repo.hpp"

namespace svc::http {

// The sites of recent requests, per worker, for [server] site_cache_seconds
// (every /message/* request and every getFolderLimits needs its site; an admin
// change reaches each worker within that time). Not thread-safe: one per
// worker process.
class SiteCache {
 public:
  explicit SiteCache(long long ttl_seconds) : ttl_(ttl_seconds) {}
  // The cached site while it is fresh at `now`, else nullptr.
  const db::Site* get(long long id, long long now) const;
  void put(const db::Site& site, long long now);

 private:
  struct Entry {
    db::Site site;
    long long expires = 0;
  };
  long long ttl_;
  std::unordered_map<long long, Entry> entries_;
};

// The site with this id (active or not) through ctx.site_cache when there is
// one; nullopt when no such site exists (never cached).
std::optional<db::Site> find_site(core::Context& ctx, long long id);

}  // namespace svc::http
