#include "db/sms_code_repo.hpp"

namespace svc::db {

std::optional<SmsCode> SmsCodeRepo::find(long long user_id, const std::string& table) {
  return db_.one(
      "SELECT code_hash, expires_at, attempts, spent, created_at FROM svc_sms_codes WHERE user_id = ? AND auth_table = "
      "?",
      [&](Params& p) { p.integer(user_id).text(table); },
      [](RowReader& r) {
        SmsCode c;
        c.code_hash = r.text();
        c.expires_at = r.integer();
        c.attempts = static_cast<int>(r.integer());
        c.spent = r.flag();
        c.created_at = r.integer();
        return c;
      });
}

bool SmsCodeRepo::store(long long user_id, const std::string& table, const std::string& code_hash, long long expires_at,
                        long long now, int resend_seconds) {
  // The assignments run left to right and see earlier ones: created_at,
  // which decides, is replaced last.
  long long cutoff = now - resend_seconds;
  db_.execute(
      "INSERT INTO svc_sms_codes (user_id, auth_table, code_hash, expires_at, attempts, spent, created_at)"
      " VALUES (?, ?, ?, ?, 0, 0, ?) ON DUPLICATE KEY UPDATE"
      " code_hash = IF(created_at <= ?, VALUES(code_hash), code_hash),"
      " expires_at = IF(created_at <= ?, VALUES(expires_at), expires_at),"
      " attempts = IF(created_at <= ?, 0, attempts),"
      " spent = IF(created_at <= ?, 0, spent),"
      " created_at = IF(created_at <= ?, VALUES(created_at), created_at)",
      [&](Params& p) {
        p.integer(user_id).text(table).text(code_hash).integer(expires_at).integer(now);
        for (int i = 0; i < 5; ++i) p.integer(cutoff);
      });
  auto stored = find(user_id, table);
  return stored && stored->code_hash == code_hash;
}

void SmsCodeRepo::remove(long long user_id, const std::string& table) {
  db_.execute("DELETE FROM svc_sms_codes WHERE user_id = ? AND auth_table = ?",
              [&](Params& p) { p.integer(user_id).text(table); });
}

bool SmsCodeRepo::count_failure(long long user_id, const std::string& table, int max_attempts) {
  return db_.execute(
             "UPDATE svc_sms_codes SET attempts = attempts + 1"
             " WHERE user_id = ? AND auth_table = ? AND spent = 0 AND attempts < ?",
             [&](Params& p) { p.integer(user_id).text(table).integer(max_attempts); }) == 1;
}

bool SmsCodeRepo::spend(long long user_id, const std::string& table, const std::string& code_hash) {
  return db_.execute(
             "UPDATE svc_sms_codes SET spent = 1 WHERE user_id = ? AND auth_table = ? AND spent = 0 AND code_hash = ?",
             [&](Params& p) { p.integer(user_id).text(table).text(code_hash); }) == 1;
}

}  // namespace svc::db
