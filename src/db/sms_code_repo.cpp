#include "db/sms_code_repo.hpp"

#include <algorithm>
#include <utility>

#include "crypto/encoding.hpp"
#include "db/transaction.hpp"

namespace svc::db {
namespace {

const char* kind_label(SmsEvent kind) {
  switch (kind) {
    case SmsEvent::kSent:
      return "sent";
    case SmsEvent::kVerifySent:
      return "verify";
    case SmsEvent::kResetSent:
      return "reset";
    case SmsEvent::kChangeSent:
      return "change";
    case SmsEvent::kWrong:
      break;
  }
  return "wrong";
}

}  // namespace

std::string SmsCodeRepo::named(std::string sql) const {
  for (auto [mark, name] : {std::pair{"$codes", tables_.codes}, std::pair{"$events", tables_.events}}) {
    for (size_t at = sql.find(mark); at != std::string::npos; at = sql.find(mark, at)) {
      sql.replace(at, std::char_traits<char>::length(mark), name);
    }
  }
  return sql;
}

std::optional<SmsCode> SmsCodeRepo::find(long long user_id, const std::string& table) {
  return db_.one(
      named("SELECT code_hash, expires_at, attempts, spent, created_at FROM $codes WHERE user_id = ? AND auth_table = "
            "?"),
      [&](Params& p) { p.integer(user_id).text(table); },
      [](RowReader& r) {
        SmsCode c;
        r.read(c.code_hash, c.expires_at, c.attempts, c.spent, c.created_at);
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
      named("INSERT INTO $codes (user_id, auth_table, code_hash, expires_at, attempts, spent, created_at)"
            " VALUES (?, ?, ?, ?, 0, 0, ?) ON DUPLICATE KEY UPDATE"
            " code_hash = IF(created_at <= ?, VALUES(code_hash), code_hash),"
            " expires_at = IF(created_at <= ?, VALUES(expires_at), expires_at),"
            " attempts = IF(created_at <= ?, 0, attempts),"
            " spent = IF(created_at <= ?, 0, spent),"
            " created_at = IF(created_at <= ?, VALUES(created_at), created_at)"),
      [&](Params& p) {
        p.integer(user_id).text(table).text(code_hash).integer(expires_at).integer(now);
        for (int i = 0; i < 5; ++i) p.integer(cutoff);
      });
  auto stored = find(user_id, table);
  return stored && stored->code_hash == code_hash;
}

void SmsCodeRepo::remove(long long user_id, const std::string& table) {
  db_.execute_idempotent(named("DELETE FROM $codes WHERE user_id = ? AND auth_table = ?"),
                         [&](Params& p) { p.integer(user_id).text(table); });
}

int SmsCodeRepo::events_since(long long user_id, const std::string& table, SmsEvent kind, long long after) {
  return static_cast<int>(
      db_.one(
             named("SELECT COUNT(*) FROM $events"
                   " WHERE user_id = ? AND auth_table = ? AND kind = ? AND happened_at > ?"),
             [&](Params& p) { p.integer(user_id).text(table).text(kind_label(kind)).integer(after); },
             [](RowReader& r) { return r.integer(); })
          .value_or(0));
}

std::optional<long long> SmsCodeRepo::window_full(long long user_id, const std::string& table, SmsEvent kind, int cap,
                                                  long long window, long long now) {
  // The cap-th most recent event of the window: once it leaves the window,
  // fewer than `cap` remain.
  auto at = db_.one(
      named("SELECT happened_at FROM $events WHERE user_id = ? AND auth_table = ? AND kind = ? AND happened_at > ?"
            " ORDER BY happened_at DESC LIMIT 1 OFFSET ?"),
      [&](Params& p) { p.integer(user_id).text(table).text(kind_label(kind)).integer(now - window).integer(cap - 1); },
      [](RowReader& r) { return r.integer(); });
  if (!at) return std::nullopt;
  return std::max(1LL, *at + window - now);
}

void SmsCodeRepo::record_sent(long long user_id, const std::string& table, long long window, long long now,
                              SmsEvent kind) {
  db_.execute(named("INSERT INTO $events (user_id, auth_table, kind, happened_at) VALUES (?, ?, ?, ?)"),
              [&](Params& p) { p.integer(user_id).text(table).text(kind_label(kind)).integer(now); });
  db_.execute_idempotent(named("DELETE FROM $events WHERE user_id = ? AND auth_table = ? AND happened_at <= ?"),
                         [&](Params& p) { p.integer(user_id).text(table).integer(now - window); });
}

SmsAttempt SmsCodeRepo::try_code(long long user_id, const std::string& table, const std::string& guess_hash,
                                 const SmsGuessLimits& limits, long long now) {
  return with_transaction_retry(db_, [&] { return try_code_once(user_id, table, guess_hash, limits, now); });
}

SmsAttempt SmsCodeRepo::try_code_once(long long user_id, const std::string& table, const std::string& guess_hash,
                                      const SmsGuessLimits& limits, long long now) {
  const int max_attempts = limits.per_code;
  Transaction tx(db_);
  // The attempt is counted before the guess is looked at: reading the count
  // first and comparing after let every parallel request pass the check.
  const int counted =
      db_.execute(named("UPDATE $codes SET attempts = attempts + 1"
                        " WHERE user_id = ? AND auth_table = ? AND spent = 0 AND attempts < ? AND expires_at > ?"),
                  [&](Params& p) { p.integer(user_id).text(table).integer(max_attempts).integer(now); });
  if (counted != 1) return {};  // rolls back; nothing was changed
  // Our UPDATE holds the row's lock until commit: this is the code we counted against.
  auto current = db_.one(
      named("SELECT code_hash, attempts FROM $codes WHERE user_id = ? AND auth_table = ?"),
      [&](Params& p) { p.integer(user_id).text(table); },
      [](RowReader& r) {
        std::string hash = r.text();
        return std::pair(std::move(hash), static_cast<int>(r.integer()));
      });
  if (!current) return {};
  // Still under the code row's lock: parallel guesses of this user count
  // their wrong guesses one after the other.
  const int wrong_today = events_since(user_id, table, SmsEvent::kWrong, now - limits.window);
  if (wrong_today >= limits.per_window) {
    SmsAttempt capped{SmsAttempt::Outcome::kCapped, 0, 1};
    capped.retry_after =
        window_full(user_id, table, SmsEvent::kWrong, limits.per_window, limits.window, now).value_or(1);
    return capped;  // rolls back: this attempt is not counted
  }
  SmsAttempt verdict;
  if (crypto::constant_time_equal(guess_hash, current->first)) {
    db_.execute(named("UPDATE $codes SET spent = 1 WHERE user_id = ? AND auth_table = ?"),
                [&](Params& p) { p.integer(user_id).text(table); });
    verdict.outcome = SmsAttempt::Outcome::kVerified;
  } else {
    db_.execute(named("INSERT INTO $events (user_id, auth_table, kind, happened_at) VALUES (?, ?, 'wrong', ?)"),
                [&](Params& p) { p.integer(user_id).text(table).integer(now); });
    verdict.outcome = SmsAttempt::Outcome::kWrong;
    verdict.attempts_left = std::max(0, std::min(max_attempts - current->second, limits.per_window - wrong_today - 1));
  }
  tx.commit();
  return verdict;
}

}  // namespace svc::db
