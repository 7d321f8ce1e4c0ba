#include "db/notification_repo.hpp"

namespace svc::db {

namespace {

constexpr const char* kTemplateSelect =
    "SELECT id, site_id, event, enabled, subject, content, `from`, bcc FROM svc_notifications";

// In the order of kTemplateSelect.
Template read_template(sql::ResultSet& rs) {
  RowReader r(rs);
  Template t;
  t.id = r.integer();
  t.site_id = r.integer();
  t.event = r.text();
  t.enabled = r.flag();
  t.subject = r.text();
  t.content = r.text();
  t.from = r.text();
  t.bcc = r.text();
  return t;
}

void set_string_or_null(sql::PreparedStatement& st, unsigned index, const std::string& value) {
  if (value.empty()) st.setNull(index, 0);
  else st.setString(index, value);
}

}  // namespace

std::optional<Template> NotificationRepo::find_enabled(long long site_id, const std::string& event) {
  auto t = find(site_id, event);
  // The column's collation ignores case, accents and trailing spaces;
  // events are identifiers and must match exactly.
  if (!t || !t->enabled || t->event != event) return std::nullopt;
  return t;
}

std::optional<Template> NotificationRepo::find(long long site_id, const std::string& event) {
  return db_.with(std::string(kTemplateSelect) + " WHERE site_id = ? AND event = ?",
                  [&](sql::PreparedStatement& st) -> std::optional<Template> {
                    st.setInt64(1, site_id);
                    st.setString(2, event);
                    auto rs = query(st);
                    if (!rs->next()) return std::nullopt;
                    return read_template(*rs);
                  });
}

std::vector<Template> NotificationRepo::list(long long site_id) {
  return db_.with(std::string(kTemplateSelect) + " WHERE site_id = ? ORDER BY event", [&](sql::PreparedStatement& st) {
    st.setInt64(1, site_id);
    auto rs = query(st);
    std::vector<Template> out;
    while (rs->next()) out.push_back(read_template(*rs));
    return out;
  });
}

long long NotificationRepo::upsert(const Template& t) {
  db_.with(
      "INSERT INTO svc_notifications (site_id, event, enabled, subject, content, `from`, bcc)"
      " VALUES (?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE enabled = VALUES(enabled),"
      " subject = VALUES(subject), content = VALUES(content), `from` = VALUES(`from`), bcc = VALUES(bcc)",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, t.site_id);
        st.setString(2, t.event);
        st.setInt(3, t.enabled ? 1 : 0);
        st.setString(4, t.subject);
        st.setString(5, t.content);
        set_string_or_null(st, 6, t.from);
        set_string_or_null(st, 7, t.bcc);
        st.executeUpdate();
      });
  auto saved = find(t.site_id, t.event);
  return saved ? saved->id : 0;
}

void NotificationRepo::set_enabled(long long id, bool enabled) {
  db_.with("UPDATE svc_notifications SET enabled = ? WHERE id = ?", [&](sql::PreparedStatement& st) {
    st.setInt(1, enabled ? 1 : 0);
    st.setInt64(2, id);
    st.executeUpdate();
  });
}

void NotificationRepo::enqueue(const OutboxEntry& e) {
  db_.with(
      "INSERT INTO svc_notification_log (site_id, notification_id, event, recipient, `from`, cc, bcc, subject, body,"
      " status, next_attempt_at, table_name, record_id, request_id)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'Pending', NOW(), ?, ?, ?)",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, e.site_id);
        if (e.notification_id > 0) st.setInt64(2, e.notification_id); else st.setNull(2, 0);
        st.setString(3, e.event);
        st.setString(4, e.recipient);
        st.setString(5, e.from);
        st.setString(6, e.cc);
        st.setString(7, e.bcc);
        st.setString(8, e.subject);
        st.setString(9, e.body);
        if (e.table_name.empty()) st.setNull(10, 0); else st.setString(10, e.table_name);
        if (e.record_id > 0) st.setInt64(11, e.record_id); else st.setNull(11, 0);
        if (e.request_id.empty()) st.setNull(12, 0); else st.setString(12, e.request_id);
        st.executeUpdate();
      });
}

void NotificationRepo::link(const std::string& master_table, long long master_id, const std::string& linked_table,
                            long long linked) {
  db_.with("INSERT INTO svc_related (master_table, master_id, linked_table, linked) VALUES (?, ?, ?, ?)",
           [&](sql::PreparedStatement& st) {
             st.setString(1, master_table);
             st.setInt64(2, master_id);
             st.setString(3, linked_table);
             st.setInt64(4, linked);
             st.executeUpdate();
           });
}

}  // namespace svc::db
