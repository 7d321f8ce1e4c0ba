#include "db/retention_repo.hpp"

namespace svc::db {

// DELETE ... LIMIT without ORDER BY: an ORDER BY id would make every batch sort
// the whole old range; which old rows go first does not matter. MariaDB logs
// such a statement row-based under binlog_format=MIXED, so replicas agree.

RetentionRepo::RetentionRepo(Database& db) : db_(db) {
  db_.execute_trusted("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
}

int RetentionRepo::purge_outbox_batch(const std::string& status, long long older_than_seconds, int limit) {
  return db_.execute(
      "DELETE FROM svc_notification_log WHERE status = ? AND created_at < NOW() - INTERVAL ? SECOND LIMIT ?",
      [&](Params& p) { p.text(status).integer(older_than_seconds).integer(limit); });
}

long long RetentionRepo::count_outbox(const std::string& status, long long older_than_seconds) {
  return db_
      .one(
          "SELECT COUNT(*) FROM svc_notification_log WHERE status = ? AND created_at < NOW() - INTERVAL ? SECOND",
          [&](Params& p) { p.text(status).integer(older_than_seconds); }, [](RowReader& r) { return r.integer(); })
      .value_or(0);
}

namespace {

// The SQL text of each aged table: constants, never built from input.
// svc_sessions keeps unix seconds: a session ended at its expiry or its
// revocation, whichever came first.
struct AgedSql {
  const char* purge;
  const char* count;
};

AgedSql aged_sql(AgedTable t) {
  switch (t) {
    case AgedTable::kAudit:
      return {"DELETE FROM svc_audit_log WHERE created_at < NOW() - INTERVAL ? SECOND LIMIT ?",
              "SELECT COUNT(*) FROM svc_audit_log WHERE created_at < NOW() - INTERVAL ? SECOND"};
    case AgedTable::kAdminAudit:
      return {"DELETE FROM svc_admin_audit WHERE created_at < UNIX_TIMESTAMP() - ? LIMIT ?",
              "SELECT COUNT(*) FROM svc_admin_audit WHERE created_at < UNIX_TIMESTAMP() - ?"};
    case AgedTable::kMailBounces:
      return {"DELETE FROM svc_mail_bounces WHERE created_at < NOW() - INTERVAL ? SECOND LIMIT ?",
              "SELECT COUNT(*) FROM svc_mail_bounces WHERE created_at < NOW() - INTERVAL ? SECOND"};
    case AgedTable::kSessions:
      return {
          "DELETE FROM svc_sessions WHERE LEAST(expires_at, COALESCE(revoked_at, expires_at))"
          " < UNIX_TIMESTAMP() - ? LIMIT ?",
          "SELECT COUNT(*) FROM svc_sessions WHERE LEAST(expires_at, COALESCE(revoked_at, expires_at))"
          " < UNIX_TIMESTAMP() - ?"};
    case AgedTable::kOAuthRequests:
      return {"DELETE FROM svc_oauth_requests WHERE expires_at < UNIX_TIMESTAMP() - ? LIMIT ?",
              "SELECT COUNT(*) FROM svc_oauth_requests WHERE expires_at < UNIX_TIMESTAMP() - ?"};
    case AgedTable::kOAuthCodes:
      return {"DELETE FROM svc_oauth_codes WHERE expires_at < UNIX_TIMESTAMP() - ? LIMIT ?",
              "SELECT COUNT(*) FROM svc_oauth_codes WHERE expires_at < UNIX_TIMESTAMP() - ?"};
    // A cookie or grant goes when no session it names is still open or
    // ended less than the age ago (svc_sessions rows purged first count as gone).
    case AgedTable::kOAuthSso:
      return {
          "DELETE FROM svc_oauth_sso WHERE NOT EXISTS (SELECT 1 FROM svc_sessions s"
          " WHERE s.id = svc_oauth_sso.session_id"
          " AND LEAST(s.expires_at, COALESCE(s.revoked_at, s.expires_at)) >= UNIX_TIMESTAMP() - ?) LIMIT ?",
          "SELECT COUNT(*) FROM svc_oauth_sso WHERE NOT EXISTS (SELECT 1 FROM svc_sessions s"
          " WHERE s.id = svc_oauth_sso.session_id"
          " AND LEAST(s.expires_at, COALESCE(s.revoked_at, s.expires_at)) >= UNIX_TIMESTAMP() - ?)"};
    case AgedTable::kOAuthGrants:
      return {
          "DELETE FROM svc_oauth_grants WHERE NOT EXISTS (SELECT 1 FROM svc_sessions s"
          " WHERE s.id = svc_oauth_grants.session_id"
          " AND LEAST(s.expires_at, COALESCE(s.revoked_at, s.expires_at)) >= UNIX_TIMESTAMP() - ?) LIMIT ?",
          "SELECT COUNT(*) FROM svc_oauth_grants WHERE NOT EXISTS (SELECT 1 FROM svc_sessions s"
          " WHERE s.id = svc_oauth_grants.session_id"
          " AND LEAST(s.expires_at, COALESCE(s.revoked_at, s.expires_at)) >= UNIX_TIMESTAMP() - ?)"};
  }
  return {"", ""};
}

}  // namespace

int RetentionRepo::purge_aged_batch(AgedTable table, long long older_than_seconds, int limit) {
  return db_.execute(aged_sql(table).purge, [&](Params& p) { p.integer(older_than_seconds).integer(limit); });
}

long long RetentionRepo::count_aged(AgedTable table, long long older_than_seconds) {
  return db_
      .one(
          aged_sql(table).count, [&](Params& p) { p.integer(older_than_seconds); },
          [](RowReader& r) { return r.integer(); })
      .value_or(0);
}

}  // namespace svc::db
