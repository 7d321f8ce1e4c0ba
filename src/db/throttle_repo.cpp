#include "db/throttle_repo.hpp"

#include <sodium.h>

namespace svc::db {

std::optional<long long> ThrottleRepo::locked_for(const std::string& table, const std::string& email, long long now) {
  return db_.with("SELECT locked_until FROM svc_login_throttle WHERE auth_table = ? AND email = ?",
                  [&](sql::PreparedStatement& st) -> std::optional<long long> {
                    st.setString(1, table);
                    st.setString(2, email);
                    auto rs = query(st);
                    if (!rs->next()) return std::nullopt;
                    long long until = rs->getInt64(1);
                    if (until <= now) return std::nullopt;
                    return until - now;
                  });
}

void ThrottleRepo::record_failure(const std::string& table, const std::string& email, long long now,
                                  int max_failures, int window_seconds) {
  // MariaDB applies the assignments left to right and later ones see earlier
  // results, so locked_until is computed before failures and window_start change.
  long long cutoff = now - window_seconds;
  db_.with(
      "INSERT INTO svc_login_throttle (auth_table, email, failures, window_start, locked_until)"
      " VALUES (?, ?, 1, ?, IF(? <= 1, ? + ?, 0))"
      " ON DUPLICATE KEY UPDATE"
      "  locked_until = IF(window_start <= ?, IF(? <= 1, ? + ?, 0),"
      "                    IF(failures + 1 >= ?, window_start + ?, locked_until)),"
      "  failures = IF(window_start <= ?, 1, failures + 1),"
      "  window_start = IF(window_start <= ?, ?, window_start)",
      [&](sql::PreparedStatement& st) {
        int i = 1;
        st.setString(i++, table);
        st.setString(i++, email);
        st.setInt64(i++, now);
        st.setInt(i++, max_failures);
        st.setInt64(i++, now);
        st.setInt(i++, window_seconds);
        st.setInt64(i++, cutoff);
        st.setInt(i++, max_failures);
        st.setInt64(i++, now);
        st.setInt(i++, window_seconds);
        st.setInt(i++, max_failures);
        st.setInt(i++, window_seconds);
        st.setInt64(i++, cutoff);
        st.setInt64(i++, cutoff);
        st.setInt64(i++, now);
        st.executeUpdate();
      });
  // Now and then, forget windows that ended long ago, so floods of unknown
  // e-mails do not grow the table without bound.
  if (randombytes_uniform(100) == 0) {
    db_.with("DELETE FROM svc_login_throttle WHERE window_start < ? AND locked_until < ? LIMIT 1000",
             [&](sql::PreparedStatement& st) {
               st.setInt64(1, cutoff);
               st.setInt64(2, now);
               st.executeUpdate();
             });
  }
}

void ThrottleRepo::reset(const std::string& table, const std::string& email) {
  db_.with("DELETE FROM svc_login_throttle WHERE auth_table = ? AND email = ?", [&](sql::PreparedStatement& st) {
    st.setString(1, table);
    st.setString(2, email);
    st.executeUpdate();
  });
}

}  // namespace svc::db
