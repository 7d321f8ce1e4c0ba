#include "db/throttle_repo.hpp"

#include <sodium.h>

namespace svc::db {

std::optional<long long> ThrottleRepo::locked_for(const std::string& table, const std::string& email, long long now) {
  auto until = db_.one(
      "SELECT locked_until FROM svc_login_throttle WHERE auth_table = ? AND email = ?",
      [&](Params& p) { p.text(table).text(email); }, [](RowReader& r) { return r.integer(); });
  if (!until || *until <= now) return std::nullopt;
  return *until - now;
}

void ThrottleRepo::record_failure(const std::string& table, const std::string& email, long long now, int max_failures,
                                  int window_seconds) {
  // MariaDB applies the assignments left to right and later ones see earlier
  // results, so locked_until is computed before failures and window_start change.
  long long cutoff = now - window_seconds;
  db_.execute(
      "INSERT INTO svc_login_throttle (auth_table, email, failures, window_start, locked_until)"
      " VALUES (?, ?, 1, ?, IF(? <= 1, ? + ?, 0))"
      " ON DUPLICATE KEY UPDATE"
      "  locked_until = IF(window_start <= ?, IF(? <= 1, ? + ?, 0),"
      "                    IF(failures + 1 >= ?, window_start + ?, locked_until)),"
      "  failures = IF(window_start <= ?, 1, failures + 1),"
      "  window_start = IF(window_start <= ?, ?, window_start)",
      [&](Params& p) {
        p.text(table).text(email).integer(now).integer(max_failures).integer(now).integer(window_seconds);
        p.integer(cutoff).integer(max_failures).integer(now).integer(window_seconds);
        p.integer(max_failures).integer(window_seconds);
        p.integer(cutoff).integer(cutoff).integer(now);
      });
  // Now and then, forget windows that ended long ago, so floods of unknown
  // e-mails do not grow the table without bound.
  if (randombytes_uniform(100) == 0) {
    db_.execute("DELETE FROM svc_login_throttle WHERE window_start < ? AND locked_until < ? LIMIT 1000",
                [&](Params& p) { p.integer(cutoff).integer(now); });
  }
}

void ThrottleRepo::reset(const std::string& table, const std::string& email) {
  db_.execute("DELETE FROM svc_login_throttle WHERE auth_table = ? AND email = ?",
              [&](Params& p) { p.text(table).text(email); });
}

}  // namespace svc::db
