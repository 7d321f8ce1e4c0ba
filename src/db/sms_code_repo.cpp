#include "db/sms_code_repo.hpp"

namespace svc::db {

std::optional<SmsCode> SmsCodeRepo::find(long long user_id, const std::string& table) {
  return db_.with(
      "SELECT code_hash, expires_at, attempts, spent, created_at FROM svc_sms_codes WHERE user_id = ? AND auth_table = ?",
      [&](sql::PreparedStatement& st) -> std::optional<SmsCode> {
        st.setInt64(1, user_id);
        st.setString(2, table);
        auto rs = query(st);
        if (!rs->next()) return std::nullopt;
        SmsCode c;
        c.code_hash = column_string(*rs, "code_hash");
        c.expires_at = column_int(*rs, "expires_at");
        c.attempts = static_cast<int>(column_int(*rs, "attempts"));
        c.spent = column_int(*rs, "spent") != 0;
        c.created_at = column_int(*rs, "created_at");
        return c;
      });
}

bool SmsCodeRepo::store(long long user_id, const std::string& table, const std::string& code_hash, long long expires_at,
                        long long now, int resend_seconds) {
  // The assignments run left to right and see earlier ones: created_at,
  // which decides, is replaced last.
  long long cutoff = now - resend_seconds;
  db_.with(
      "INSERT INTO svc_sms_codes (user_id, auth_table, code_hash, expires_at, attempts, spent, created_at)"
      " VALUES (?, ?, ?, ?, 0, 0, ?) ON DUPLICATE KEY UPDATE"
      " code_hash = IF(created_at <= ?, VALUES(code_hash), code_hash),"
      " expires_at = IF(created_at <= ?, VALUES(expires_at), expires_at),"
      " attempts = IF(created_at <= ?, 0, attempts),"
      " spent = IF(created_at <= ?, 0, spent),"
      " created_at = IF(created_at <= ?, VALUES(created_at), created_at)",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, user_id);
        st.setString(2, table);
        st.setString(3, code_hash);
        st.setInt64(4, expires_at);
        st.setInt64(5, now);
        for (unsigned i = 6; i <= 10; ++i) st.setInt64(i, cutoff);
        st.executeUpdate();
      });
  auto stored = find(user_id, table);
  return stored && stored->code_hash == code_hash;
}

void SmsCodeRepo::remove(long long user_id, const std::string& table) {
  db_.with("DELETE FROM svc_sms_codes WHERE user_id = ? AND auth_table = ?", [&](sql::PreparedStatement& st) {
    st.setInt64(1, user_id);
    st.setString(2, table);
    st.executeUpdate();
  });
}

bool SmsCodeRepo::count_failure(long long user_id, const std::string& table, int max_attempts) {
  return db_.with(
      "UPDATE svc_sms_codes SET attempts = attempts + 1"
      " WHERE user_id = ? AND auth_table = ? AND spent = 0 AND attempts < ?",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, user_id);
        st.setString(2, table);
        st.setInt(3, max_attempts);
        return st.executeUpdate() == 1;
      });
}

bool SmsCodeRepo::spend(long long user_id, const std::string& table, const std::string& code_hash) {
  return db_.with(
      "UPDATE svc_sms_codes SET spent = 1 WHERE user_id = ? AND auth_table = ? AND spent = 0 AND code_hash = ?",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, user_id);
        st.setString(2, table);
        st.setString(3, code_hash);
        return st.executeUpdate() == 1;
      });
}

}  // namespace svc::db
