#include "db/doctor_repo.hpp"

#include <cppconn/exception.h>

#include <utility>

namespace svc::db {

std::string DoctorRepo::server_version() {
  return db_.one("SELECT VERSION()", kNoParams, [](RowReader& r) { return r.text(); }).value_or("");
}

std::map<int, std::string> DoctorRepo::applied_migrations() {
  std::map<int, std::string> out;
  const bool exists = db_.one(
                             "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"
                             " AND table_name = 'svc_schema_migrations'",
                             kNoParams, [](RowReader& r) { return r.integer(); })
                          .value_or(0) > 0;
  if (!exists) return out;
  const auto rows = db_.rows("SELECT version, checksum FROM svc_schema_migrations", kNoParams, [](RowReader& r) {
    const auto version = static_cast<int>(r.integer());
    return std::pair(version, r.text());
  });
  for (const auto& [version, checksum] : rows) out[version] = checksum;
  return out;
}

namespace {

// "id name" of each svc_sites row the query selects (its columns: id, name).
std::vector<std::string> site_names(Database& db, const char* query) {
  return db.rows(query, kNoParams, [](RowReader& r) {
    const long long id = r.integer();
    return std::to_string(id) + " " + r.text();
  });
}

}  // namespace

std::vector<std::string> DoctorRepo::keyless_sites() {
  return site_names(
      db_,
      "SELECT id, name FROM svc_sites WHERE active = 1 AND (api_key_hash IS NULL OR api_key_hash = '') ORDER BY id");
}

std::vector<std::string> DoctorRepo::senderless_sites() {
  return site_names(db_,
                    "SELECT id, name FROM svc_sites WHERE active = 1 AND disable_email = 0"
                    " AND TRIM(COALESCE(email_from, '')) = '' ORDER BY id");
}

SenderActivity DoctorRepo::sender_activity() {
  return db_
      .one(
          "SELECT"
          " COALESCE((SELECT TIMESTAMPDIFF(SECOND, MAX(sent_at), NOW()) FROM svc_notification_log"
          "   WHERE status = 'Sent'), -1),"
          " COALESCE((SELECT TIMESTAMPDIFF(SECOND, MIN(next_attempt_at), NOW()) FROM svc_notification_log"
          "   WHERE status = 'Pending' AND next_attempt_at <= NOW()"
          "   AND (claimed_until IS NULL OR claimed_until < NOW())), -1),"
          " COALESCE((SELECT TIMESTAMPDIFF(SECOND, MAX(last_run_at), NOW()) FROM svc_sender_status), -1)",
          kNoParams,
          [](RowReader& r) {
            SenderActivity a;
            r.read(a.last_sent_age, a.oldest_due_wait, a.last_run_age);
            return a;
          })
      .value_or(SenderActivity{});
}

std::vector<std::string> DoctorRepo::empty_templates() {
  return db_.rows(
      "SELECT n.site_id, n.event FROM svc_notifications n JOIN svc_sites s ON s.id = n.site_id"
      " WHERE n.enabled = 1 AND s.active = 1 AND (TRIM(n.subject) = '' OR TRIM(n.content) = '')"
      " ORDER BY n.site_id, n.event",
      kNoParams, [](RowReader& r) {
        const long long site = r.integer();
        return "site " + std::to_string(site) + " event " + r.text();
      });
}

bool DoctorRepo::can_read_sites() {
  try {
    db_.rows("SELECT id FROM svc_sites LIMIT 1", kNoParams, [](RowReader& r) { return r.integer(); });
    return true;
  } catch (const sql::SQLException& e) {
    // 1142 SELECT command denied, 1143 column denied: the grant is right.
    if (e.getErrorCode() == 1142 || e.getErrorCode() == 1143) return false;
    throw;
  }
}

}  // namespace svc::db
