#include "db/sms_code_repo.hpp"

#include <utility>

#include "crypto/encoding.hpp"

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
  // Idempotent: a re-run finds created_at = now, newer than the cutoff, and
  // changes nothing.
  long long cutoff = now - resend_seconds;
  db_.execute_idempotent(
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
  db_.execute_idempotent("DELETE FROM svc_sms_codes WHERE user_id = ? AND auth_table = ?",
                         [&](Params& p) { p.integer(user_id).text(table); });
}

SmsAttempt SmsCodeRepo::try_code(long long user_id, const std::string& table, const std::string& guess_hash,
                                 int max_attempts, long long now) {
  return with_transaction_retry(db_, [&] { return try_code_once(user_id, table, guess_hash, max_attempts, now); });
}

SmsAttempt SmsCodeRepo::try_code_once(long long user_id, const std::string& table, const std::string& guess_hash,
                                      int max_attempts, long long now) {
  Transaction tx(db_);
  // The attempt is counted before the guess is looked at: reading the count
  // first and comparing after let every parallel request pass the check.
  const int counted = db_.execute(
      "UPDATE svc_sms_codes SET attempts = attempts + 1"
      " WHERE user_id = ? AND auth_table = ? AND spent = 0 AND attempts < ? AND expires_at > ?",
      [&](Params& p) { p.integer(user_id).text(table).integer(max_attempts).integer(now); });
  if (counted != 1) return {};  // rolls back; nothing was changed
  // Our UPDATE holds the row's lock until commit: this is the code we counted against.
  auto current = db_.one(
      "SELECT code_hash, attempts FROM svc_sms_codes WHERE user_id = ? AND auth_table = ?",
      [&](Params& p) { p.integer(user_id).text(table); },
      [](RowReader& r) {
        std::string hash = r.text();
        return std::pair(std::move(hash), static_cast<int>(r.integer()));
      });
  if (!current) return {};
  SmsAttempt verdict;
  if (crypto::constant_time_equal(guess_hash, current->first)) {
    db_.execute("UPDATE svc_sms_codes SET spent = 1 WHERE user_id = ? AND auth_table = ?",
                [&](Params& p) { p.integer(user_id).text(table); });
    verdict.outcome = SmsAttempt::Outcome::kVerified;
  } else {
    verdict.outcome = SmsAttempt::Outcome::kWrong;
    verdict.attempts_left = max_attempts > current->second ? max_attempts - current->second : 0;
  }
  tx.commit();
  return verdict;
}

}  // namespace svc::db
