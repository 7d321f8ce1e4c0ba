#include "messaging/template_cache.hpp"

#include "core/clock.hpp"
#include "messaging/locale.hpp"

namespace svc::messaging {
namespace {

// Bounds the memory of a worker (templates hold whole e-mail bodies): when
// full, expired entries go first, then everything.
constexpr std::size_t kMaxEntries = 512;

}  // namespace

std::string TemplateCache::key(long long site_id, const std::string& event, const std::string& locale) {
  return std::to_string(site_id) + '\n' + event + '\n' + locale;
}

const db::Template* TemplateCache::get(long long site_id, const std::string& event, long long now,
                                       const std::string& locale) const {
  if (ttl_ <= 0) return nullptr;
  auto it = entries_.find(key(site_id, event, locale));
  if (it == entries_.end()) return nullptr;
  const long long fetched = it->second.fetched;
  return fetched <= now && now < fetched + ttl_ ? &it->second.tmpl : nullptr;
}

void TemplateCache::put(const db::Template& t, long long now, const std::string& locale) {
  if (ttl_ <= 0) return;
  if (entries_.size() >= kMaxEntries) {
    std::erase_if(entries_, [&](const auto& e) { return !(e.second.fetched <= now && now < e.second.fetched + ttl_); });
    if (entries_.size() >= kMaxEntries) entries_.clear();
  }
  entries_[key(t.site_id, t.event, locale)] = Entry{t, now};
}

std::optional<db::Template> find_template_recent(core::Context& ctx, long long site_id, const std::string& event,
                                                 const std::string& locale) {
  const long long now = ctx.clock.now();
  if (ctx.template_cache) {
    if (const db::Template* cached = ctx.template_cache->get(site_id, event, now, locale)) return *cached;
  }
  auto t = db::NotificationRepo(ctx.db).find_enabled(site_id, event, locale_fallbacks(locale));
  if (t && ctx.template_cache) ctx.template_cache->put(*t, now, locale);
  return t;
}

}  // namespace svc::messaging
