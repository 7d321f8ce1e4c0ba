#include "db/notification_repo.hpp"

namespace svc::db {

namespace {

constexpr const char* kTemplateSelect =
    "SELECT id, site_id, event, locale, enabled, subject, content, `from`, bcc, priority FROM svc_notifications";

// In the order of kTemplateSelect.
constexpr auto read_template =
    read_fields<Template, &Template::id, &Template::site_id, &Template::event, &Template::locale, &Template::enabled,
                &Template::subject, &Template::content, &Template::from, &Template::bcc, &Template::priority>;

}  // namespace

std::optional<Template> NotificationRepo::find_enabled(long long site_id, const std::string& event) {
  auto t = find(site_id, event);
  // The column's collation ignores case, accents and trailing spaces;
  // events are identifiers and must match exactly.
  if (!t || !t->enabled || t->event != event) return std::nullopt;
  return t;
}

std::optional<Template> NotificationRepo::find_enabled(long long site_id, const std::string& event,
                                                       const std::vector<std::string>& fallbacks) {
  if (fallbacks.size() <= 1) return find_enabled(site_id, event);
  std::string in = "?";
  for (std::size_t i = 1; i < fallbacks.size(); ++i) in += ", ?";
  const auto found = db_.rows(
      std::string(kTemplateSelect) + " WHERE site_id = ? AND event = ? AND locale IN (" + in + ")",
      [&](Params& p) {
        p.integer(site_id).text(event);
        for (const auto& l : fallbacks) p.text(l);
      },
      read_template);
  for (const auto& locale : fallbacks) {
    for (const auto& t : found) {
      if (t.locale == locale && t.enabled && t.event == event) return t;
    }
  }
  return std::nullopt;
}

std::optional<Template> NotificationRepo::find(long long site_id, const std::string& event, const std::string& locale) {
  return db_.one(
      std::string(kTemplateSelect) + " WHERE site_id = ? AND event = ? AND locale = ?",
      [&](Params& p) { p.integer(site_id).text(event).text(locale); }, read_template);
}

std::vector<Template> NotificationRepo::list(long long site_id) {
  return db_.rows(
      std::string(kTemplateSelect) + " WHERE site_id = ? ORDER BY event, locale",
      [&](Params& p) { p.integer(site_id); }, read_template);
}

std::optional<Template> NotificationRepo::find_by_id(long long site_id, long long id, bool lock) {
  return db_.one(
      std::string(kTemplateSelect) + " WHERE id = ? AND site_id = ?" + (lock ? " FOR UPDATE" : ""),
      [&](Params& p) { p.integer(id).integer(site_id); }, read_template);
}

std::vector<Template> NotificationRepo::page(long long site_id, const std::string& after_event,
                                             const std::string& after_locale, int limit) {
  return db_.rows(
      std::string(kTemplateSelect) +
          " WHERE site_id = ? AND (event > ? OR (event = ? AND locale > ?)) ORDER BY event, locale LIMIT ?",
      [&](Params& p) { p.integer(site_id).text(after_event).text(after_event).text(after_locale).integer(limit); },
      read_template);
}

long long NotificationRepo::insert(const Template& t) {
  db_.execute(
      "INSERT INTO svc_notifications (site_id, event, locale, enabled, subject, content, `from`, bcc, priority)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [&](Params& p) {
        p.integer(t.site_id).text(t.event).text(t.locale).flag(t.enabled).text(t.subject).text(t.content);
        p.text_or_null(t.from).text_or_null(t.bcc).integer(t.priority);
      });
  return db_.last_insert_id();
}

void NotificationRepo::update(const Template& t) {
  db_.execute(
      "UPDATE svc_notifications SET event = ?, locale = ?, enabled = ?, subject = ?, content = ?, `from` = ?,"
      " bcc = ?, priority = ? WHERE id = ? AND site_id = ?",
      [&](Params& p) {
        p.text(t.event).text(t.locale).flag(t.enabled).text(t.subject).text(t.content);
        p.text_or_null(t.from).text_or_null(t.bcc).integer(t.priority).integer(t.id).integer(t.site_id);
      });
}

void NotificationRepo::remove(long long site_id, long long id) {
  db_.execute("DELETE FROM svc_notifications WHERE id = ? AND site_id = ?",
              [&](Params& p) { p.integer(id).integer(site_id); });
}

void NotificationRepo::enqueue(const OutboxEntry& e) {
  // dedup_key (sql/004) is unique; the unit separator keeps ("a", "bc") and
  // ("ab", "c") apart. LAST_INSERT_ID(id) makes a duplicate report the row
  // that is already there.
  const std::string dedup =
      e.request_id.empty() ? std::string() : e.request_id + '\x1f' + e.mail.event + '\x1f' + e.mail.recipient;
  db_.execute_idempotent(
      "INSERT INTO svc_notification_log (site_id, notification_id, event, recipient, `from`, cc, bcc, subject, body,"
      " status, next_attempt_at, table_name, record_id, request_id, priority, dedup_key)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'Pending', NOW(), ?, ?, ?, ?, UNHEX(SHA2(?, 256)))"
      " ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id)",
      [&](Params& p) {
        p.integer(e.mail.site_id)
            .id_or_null(e.notification_id)
            .text(e.mail.event)
            .text(e.mail.recipient)
            .text(e.mail.from);
        p.text(e.mail.cc).text(e.mail.bcc).text(e.mail.subject).text(e.mail.body);
        p.text_or_null(e.table_name).id_or_null(e.record_id).text_or_null(e.request_id);
        p.integer(e.priority).text_or_null(dedup);
      });
}

void NotificationRepo::link(const std::string& master_table, long long master_id, const std::string& linked_table,
                            long long linked) {
  db_.execute("INSERT INTO svc_related (master_table, master_id, linked_table, linked) VALUES (?, ?, ?, ?)",
              [&](Params& p) { p.text(master_table).integer(master_id).text(linked_table).integer(linked); });
}

}  // namespace svc::db
