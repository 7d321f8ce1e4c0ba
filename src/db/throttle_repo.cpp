#include "db/throttle_repo.hpp"

#include <sodium.h>

#include <algorithm>

namespace svc::db {

std::optional<long long> ThrottleRepo::claim_attempt(const std::string& table, const std::string& email, long long now,
                                                     int max_failures, int window_seconds) {
  const long long cutoff = now - window_seconds;
  // The row must exist for the UPDATE to count on it; a no-op when it does,
  // so it may run twice.
  db_.execute_idempotent(
      "INSERT INTO svc_login_throttle (auth_table, email, failures, window_start, locked_until)"
      " VALUES (?, ?, 0, ?, 0) ON DUPLICATE KEY UPDATE failures = failures",
      [&](Params& p) { p.text(table).text(email).integer(now); });
  // MariaDB applies the assignments left to right and later ones see earlier
  // results, so locked_until is computed before failures and window_start
  // change. A window that ended starts over at this attempt.
  const int counted = db_.execute(
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
  // Now and then, forget windows that ended long ago, so floods of unknown
  // e-mails do not grow the table without bound.
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
  // Left to right: locked_until sees the lowered count. A count below the
  // limit holds no lock (claim_attempt locks when the count reaches it).
  db_.execute(
      "UPDATE svc_login_throttle SET failures = failures - 1, locked_until = IF(failures >= ?, locked_until, 0)"
      " WHERE auth_table = ? AND email = ? AND failures > 0",
      [&](Params& p) { p.integer(max_failures).text(table).text(email); });
}

}  // namespace svc::db
