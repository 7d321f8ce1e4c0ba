#include "http/site_cache.hpp"

#include "core/clock.hpp"

namespace svc::http {

const db::Site* SiteCache::get(long long id, long long now) const {
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.expires > now ? &it->second.site : nullptr;
}

void SiteCache::put(const db::Site& site, long long now) {
  if (ttl_ <= 0) return;
  if (entries_.size() >= 1024) entries_.clear();  // bounded: unknown ids are not cached, sites are few
  entries_[site.id] = Entry{site, now + ttl_};
}

std::optional<db::Site> find_site(core::Context& ctx, long long id) {
  const long long now = ctx.clock.now();
  if (ctx.site_cache) {
    if (const db::Site* cached = ctx.site_cache->get(id, now)) return *cached;
  }
  auto site = db::SiteRepo(ctx.db).find(id);
  if (site && ctx.site_cache) ctx.site_cache->put(*site, now);
  return site;
}

}  // namespace svc::http
