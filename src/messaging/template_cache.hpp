#pragma once
// The templates of recent notifications, per worker, for [server]
// template_cache_seconds (docs/configuration.md): every /message/notification
// needs its site's template for the event, and a site sends few distinct
// events, so a worker reuses the row instead of a round trip per e-mail. An
// admin change to a template (`svc-admin template ...`: content, disable,
// priority) reaches every worker within that time, as a site change does
// with [server] site_cache_seconds.
//
// Not thread-safe: one per worker process. An entry is used only while
// fetched <= now < fetched + ttl, so a clock stepped back never stretches
// it. A missing or disabled template is never cached: adding or enabling
// one applies at once. Entries are per requested locale: a fallback (de for
// de-AT, or the default) is kept for that locale, so a more specific
// template added later is used once the entry expires.

#include <optional>
#include <string>
#include <unordered_map>

#include "core/context.hpp"
#include "db/notification_repo.hpp"

namespace svc::messaging {

class TemplateCache {
 public:
  // ttl_seconds <= 0: nothing is kept.
  explicit TemplateCache(long long ttl_seconds) : ttl_(ttl_seconds) {}
  // The enabled template of `site_id` for `event` asked for in `locale`
  // ("" = default) while fresh at `now`, else nullptr.
  const db::Template* get(long long site_id, const std::string& event, long long now,
                          const std::string& locale = "") const;
  // `t` as the answer for `locale` (t.locale may be a fallback of it).
  void put(const db::Template& t, long long now, const std::string& locale = "");

 private:
  struct Entry {
    db::Template tmpl;
    long long fetched = 0;
  };
  static std::string key(long long site_id, const std::string& event, const std::string& locale);
  long long ttl_;
  std::unordered_map<std::string, Entry> entries_;
};

// NotificationRepo::find_enabled through ctx.template_cache when there is
// one: the template in `locale` or its fallbacks (locale.hpp), "" = default.
std::optional<db::Template> find_template_recent(core::Context& ctx, long long site_id, const std::string& event,
                                                 const std::string& locale = "");

}  // namespace svc::messaging
