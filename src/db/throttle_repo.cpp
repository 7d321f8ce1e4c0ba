#include "db/throttle_repo.hpp"

#include <sodium.h>

#include <algorithm>

namespace svc::db {

int ThrottleRepo::count_on_row(const std::string& table, const std::string& email, long long now, int max_failures,
                               int window_seconds) {
  const long long cutoff = now - window_seconds;
  // MariaDB applies the assignments left to right and later ones see earlier
  // results, so locked_until is computed before failures and window_start
  // change. A window that ended starts over at this attempt.
  return db_.execute(
      "UPDATE svc_login_throttle SET"
      "  locked_until = IF(window_start <= ?, IF(? <= 1, ? + ?, 0),"
      "                    IF(failures + 1 >= ?, window_start + ?, locked_until)),"
      "  failures = IF(window_start <= ?, 1, failures + 1),"
      "  window_start = IF(window_start <= ?, ?, window_start)"
      " WHERE auth_table = ? AND email = ? AND locked_until <= ? AND (window_start <= ? OR failures < ?)",
      [&](Params& p) {
        p.integer(cutoff).integer(max_failures).integer(now).integer(window_seconds);
        p.integer(max_failures).integer(window_seconds);
        p.integer(cutoff).integer(cutoff).integer(now);
        p.text(table).text(email).integer(now).integer(cutoff).integer(max_failures);
      });
}

std::optional<long long> ThrottleRepo::claim_attempt(const std::string& table, const std::string& email, long long now,
                                                     int max_failures, int window_seconds) {
  const long long cutoff = now - window_seconds;
  // No row yet (the common case: a successful login deletes it): the
  // attempt is counted by creating it, in one statement and one commit. The
  // values are what the UPDATE below makes of a fresh row. IGNORE: a
  // parallel attempt created it first (0 rows), so count on that row below.
  // Re-run once after a lost connection (the first statement of a login
  // meets a connection the server dropped): when the lost run had created
  // the row, the UPDATE counts this attempt twice, erring toward the lock.
  const int created = db_.execute_idempotent(
      "INSERT IGNORE INTO svc_login_throttle (auth_table, email, failures, window_start, locked_until)"
      " VALUES (?, ?, 1, ?, IF(? <= 1, ? + ?, 0))",
      [&](Params& p) {
        p.text(table).text(email).integer(now);
        p.integer(max_failures).integer(now).integer(window_seconds);
      });
  const int counted = created == 1 ? 1 : count_on_row(table, email, now, max_failures, window_seconds);
  // Now and then, forget windows that ended long ago, so floods of unknown
  // e-mails (each a new row) do not grow the table without bound.
  if (randombytes_uniform(100) == 0) {
    db_.execute_idempotent("DELETE FROM svc_login_throttle WHERE window_start < ? AND locked_until < ? LIMIT 1000",
                           [&](Params& p) { p.integer(cutoff).integer(now); });
  }
  if (counted == 1) return std::nullopt;
  // Locked: until locked_until, or (when max_failures was lowered under a
  // running count) until the window ends.
  auto until = db_.one(
      "SELECT GREATEST(locked_until, window_start + ?) FROM svc_login_throttle WHERE auth_table = ? AND email = ?",
      [&](Params& p) { p.integer(window_seconds).text(table).text(email); }, [](RowReader& r) { return r.integer(); });
  if (!until) return std::nullopt;  // purged by a parallel request just now: nothing holds a lock
  return std::max(1LL, *until - now);
}

void ThrottleRepo::reset(const std::string& table, const std::string& email) {
  db_.execute_idempotent("DELETE FROM svc_login_throttle WHERE auth_table = ? AND email = ?",
                         [&](Params& p) { p.text(table).text(email); });
}

void ThrottleRepo::release(const std::string& table, const std::string& email, int max_failures) {
  // This attempt alone (the common case): its row goes, as a granted login's
  // does, so the second factor's own claim creates one in one statement.
  const auto key = [&](Params& p) { p.text(table).text(email); };
  if (db_.execute("DELETE FROM svc_login_throttle WHERE auth_table = ? AND email = ? AND failures <= 1", key) == 1) {
    return;
  }
  // Left to right: locked_until sees the lowered count. A count below the
  // limit holds no lock (claim_attempt locks when the count reaches it).
  db_.execute(
      "UPDATE svc_login_throttle SET failures = failures - 1, locked_until = IF(failures >= ?, locked_until, 0)"
      " WHERE auth_table = ? AND email = ? AND failures > 0",
      [&](Params& p) { p.integer(max_failures).text(table).text(email); });
}

}  // namespace svc::db
