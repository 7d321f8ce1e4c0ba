#include "db/session_repo.hpp"

namespace svc::db {
namespace {

constexpr const char* kColumns = kSessionColumns;
constexpr auto read_session = read_session_row;
constexpr auto read_session_and_grant =
    read_fields<SessionRow, &SessionRow::id, &SessionRow::site_id, &SessionRow::table, &SessionRow::user_id,
                &SessionRow::generation, &SessionRow::created_at, &SessionRow::last_seen_at, &SessionRow::rotated_at,
                &SessionRow::expires_at, &SessionRow::auth_time, &SessionRow::amr, &SessionRow::ip,
                &SessionRow::user_agent, &SessionRow::revoked_at, &SessionRow::revoked_reason,
                &SessionRow::oauth_grant>;

}  // namespace

bool SessionRepo::insert(const SessionRow& row, const std::string& legacy_jti) {
  // IGNORE: only the unique legacy_jti can collide (ids are 128 random
  // bits), and a collision there is the answer (that token opened one).
  // Idempotent: a re-run after a lost connection finds its own row.
  const int inserted = db_.execute_idempotent(
      "INSERT IGNORE INTO svc_sessions (id, site_id, auth_table, user_id, generation, created_at, last_seen_at,"
      " rotated_at, expires_at, auth_time, amr, ip, user_agent, device_key, legacy_jti)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''))",
      [&](Params& p) {
        p.text(row.id).integer(row.site_id).text(row.table).integer(row.user_id).integer(row.generation);
        p.integer(row.created_at).integer(row.last_seen_at).integer(row.rotated_at).integer(row.expires_at);
        p.integer(row.auth_time).text(row.amr).text(row.ip).text(row.user_agent).text(row.device_key);
        p.text_or_null(legacy_jti);
      });
  if (inserted == 1 || legacy_jti.empty()) return true;
  auto mine = find(row.id);  // the re-run case: the row is this call's own
  return mine.has_value();
}

std::optional<SessionRow> SessionRepo::find(const std::string& id) {
  return db_.one(
      std::string("SELECT ") + kColumns + " FROM svc_sessions WHERE id = ?", [&](Params& p) { p.text(id); },
      read_session);
}

std::optional<SessionRow> SessionRepo::find_with_grant(const std::string& id) {
  static const std::string sql = "SELECT " + qualified_columns(kColumns, "s") +
                                 ", EXISTS (SELECT 1 FROM svc_oauth_grants g WHERE g.session_id = s.id)"
                                 " FROM svc_sessions s WHERE s.id = ?";
  return db_.one(
      sql, [&](Params& p) { p.text(id); }, read_session_and_grant);
}

std::optional<SessionRow> SessionRepo::find_legacy(const std::string& jti) {
  return db_.one(
      std::string("SELECT ") + kColumns + " FROM svc_sessions WHERE legacy_jti = ?", [&](Params& p) { p.text(jti); },
      read_session);
}

bool SessionRepo::rotate(const SessionClaim& claim, long long now, long long expires_at, const std::string& ip,
                         const std::string& user_agent, bool oauth_grant_ok, const UserHold* user) {
  // Not re-run after a lost connection (execute): the caller re-reads the
  // row and sees whether the generation moved. A Galera certification
  // loser (1213) is re-run by Database and then finds the generation moved.
  // FORCE INDEX: the row is found by its key; without the hint the range
  // optimizer also weighs the user and expiry indexes the other conditions
  // name, which cost a refresh more than the row's update does (issue 52's
  // profile). An OAuth client's own refresh skips the grant check.
  static const std::string kRotate =
      "UPDATE svc_sessions FORCE INDEX (PRIMARY) SET generation = generation + 1, rotated_at = ?, last_seen_at = ?,"
      " expires_at = ?, ip = ?, user_agent = ?"
      " WHERE id = ? AND generation = ? AND revoked_at IS NULL AND expires_at > ?"
      " AND auth_table = ? AND user_id = ?";
  static const std::string kRotateNoGrant =
      kRotate + " AND NOT EXISTS (SELECT 1 FROM svc_oauth_grants g WHERE g.session_id = svc_sessions.id)";
  const std::string& rotate = oauth_grant_ok ? kRotate : kRotateNoGrant;
  return db_.execute(user ? rotate + " AND " + user->condition : rotate, [&](Params& p) {
    p.integer(now).integer(now).integer(expires_at).text(ip).text(user_agent);
    p.text(claim.id).integer(claim.generation).integer(now).text(claim.table).integer(claim.user_id);
    if (user) p.integer(claim.user_id).integer(user->token_version).flag(user->email_verified);
  }) == 1;
}

bool SessionRepo::revoke(const std::string& id, long long now, const std::string& reason) {
  return db_.execute("UPDATE svc_sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL",
                     [&](Params& p) { p.integer(now).text(reason).text(id); }) == 1;
}

int SessionRepo::revoke_user(const SessionScope& scope, long long now, const std::string& reason) {
  return db_.execute(
      "UPDATE svc_sessions SET revoked_at = ?, revoked_reason = ?"
      " WHERE auth_table = ? AND user_id = ? AND revoked_at IS NULL AND id <> ?",
      [&](Params& p) { p.integer(now).text(reason).text(scope.table).integer(scope.user_id).text(scope.keep_id); });
}

std::vector<SessionRow> SessionRepo::open_sessions(const std::string& table, long long user_id, long long now) {
  return db_.rows(
      std::string("SELECT ") + kColumns +
          " FROM svc_sessions WHERE auth_table = ? AND user_id = ? AND revoked_at IS NULL"
          " AND expires_at > ? ORDER BY created_at DESC, id LIMIT 100",
      [&](Params& p) { p.text(table).integer(user_id).integer(now); }, read_session);
}

std::optional<bool> SessionRepo::seen_device(const std::string& table, long long user_id, const std::string& device_key,
                                             long long since) {
  // MAX over no rows is NULL: the user has never had a session. Rows from
  // before sql/035 hold "", which no device key equals.
  auto seen = db_.one(
      "SELECT MAX(device_key = ? AND last_seen_at >= ?) FROM svc_sessions WHERE auth_table = ? AND user_id = ?",
      [&](Params& p) { p.text(device_key).integer(since).text(table).integer(user_id); },
      [](RowReader& r) {
        std::optional<long long> v;
        r.read(v);
        return v;
      });
  if (!seen || !*seen) return std::nullopt;
  return **seen != 0;
}

bool SessionRepo::not_me_unspent(const std::string& id, const std::string& table, long long user_id) {
  return db_
      .one(
          "SELECT 1 FROM svc_sessions WHERE id = ? AND auth_table = ? AND user_id = ? AND not_me_at IS NULL",
          [&](Params& p) { p.text(id).text(table).integer(user_id); }, [](RowReader& r) { return r.integer(); })
      .has_value();
}

bool SessionRepo::spend_not_me(const std::string& id, const std::string& table, long long user_id, long long now) {
  return db_.execute(
             "UPDATE svc_sessions SET not_me_at = ? WHERE id = ? AND auth_table = ? AND user_id = ? AND not_me_at IS "
             "NULL",
             [&](Params& p) { p.integer(now).text(id).text(table).integer(user_id); }) == 1;
}

}  // namespace svc::db
