#pragma once

#include <string>
#include <unordered_map>
#include <string_view>

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "http/request.hpp"

namespace svc::messaging {

// The sites of recent messaging requests, per worker, for [server]
// site_cache_seconds (every /message/* request needs its site; an admin
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

// Resolves the calling application from the `site-id` (or `x-site-id`)
// header. A missing, non-numeric, unknown or inactive site, or a site with an
// API key whose `x-site-key` header does not match, throws
// ApiError 401 {"status":"Error","message":"Unauthorized"}. The body never
// chooses the site.
db::Site authenticate_site(const http::Request& request, core::Context& ctx);

// The stored form of a site API key (hex BLAKE2b-256); svc-admin writes it.
std::string hash_site_key(std::string_view key);

}  // namespace svc::messaging
