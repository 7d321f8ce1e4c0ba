#include "messaging/site_auth.hpp"

#include <sodium.h>

#include <algorithm>

#include "core/clock.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"

namespace svc::messaging {
namespace {

std::optional<long long> parse_site_id(std::string_view v) {
  auto n = core::parse_id(v);
  return n && *n > 0 ? n : std::nullopt;
}

}  // namespace

std::string hash_site_key(std::string_view key) {
  unsigned char h[32];
  crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(key.data()), key.size(), nullptr, 0);
  char hex[sizeof h * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, h, sizeof h);
  return hex;
}

const db::Site* SiteCache::get(long long id, long long now) const {
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.expires > now ? &it->second.site : nullptr;
}

void SiteCache::put(const db::Site& site, long long now) {
  if (ttl_ <= 0) return;
  if (entries_.size() >= 1024) entries_.clear();  // bounded: unknown ids are not cached, sites are few
  entries_[site.id] = Entry{site, now + ttl_};
}

db::Site authenticate_site(const http::Request& request, core::Context& ctx) {
  auto unauthorized = [] { return http::ApiError::error(401, "Unauthorized"); };
  std::string_view header = request.header("site-id");
  if (header.empty()) header = request.header("x-site-id");
  auto id = parse_site_id(header);
  if (!id) throw unauthorized();
  const long long now = ctx.clock.now();
  std::optional<db::Site> site;
  if (const db::Site* cached = ctx.site_cache ? ctx.site_cache->get(*id, now) : nullptr) {
    site = *cached;
  } else {
    site = db::SiteRepo(ctx.db).find(*id);
    if (site && ctx.site_cache) ctx.site_cache->put(*site, now);
  }
  if (!site || !site->active) throw unauthorized();
  if (!site->api_key_hash.empty()) {
    std::string given = hash_site_key(request.header("x-site-key"));
    bool match = given.size() == site->api_key_hash.size() &&
                 sodium_memcmp(given.data(), site->api_key_hash.data(), given.size()) == 0;
    if (request.header("x-site-key").empty() || !match) throw unauthorized();
  }
  return *site;
}

}  // namespace svc::messaging
