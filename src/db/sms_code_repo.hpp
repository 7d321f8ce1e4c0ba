#pragma once

#include <optional>
#include <string>

#include "db/database.hpp"

namespace svc::db {

// The current SMS code of a user (one row per user and auth table); only the
// HMAC of the code is stored.
struct SmsCode {
  std::string code_hash;
  long long expires_at = 0;
  int attempts = 0;
  bool spent = false;
  long long created_at = 0;
};

// The verdict on one guess: kWrong carries the attempts still left (of the
// code and of the day, whichever is fewer); kCapped the seconds until the
// rolling 24 h cap on wrong guesses admits one more.
struct SmsAttempt {
  enum class Outcome { kDead, kWrong, kVerified, kCapped };
  Outcome outcome = Outcome::kDead;
  int attempts_left = 0;
  long long retry_after = 0;
};

// The caps one guess is checked against.
struct SmsGuessLimits {
  int per_code = 5;          // [auth] sms_max_attempts
  int per_window = 10;       // [auth] sms_max_wrong_daily: wrong guesses across codes
  long long window = 86400;  // seconds of the rolling window
};

// What svc_sms_events counts per user (sql/009); kVerifySent: address
// verification mails, counted in svc_email_code_events beside the e-mail
// codes under the same caps (issue 36).
// kResetSent and kChangeSent: reset mail and e-mail change mail, counted by
// the e-mail codes' caps (auth/email/mail_caps.hpp) in svc_email_code_events.
enum class SmsEvent { kSent, kWrong, kVerifySent, kResetSent, kChangeSent };

// The two tables of one kind of one-time code: the current codes (one row
// per user and auth table) and the events the daily caps count. Fixed
// names, never a request's.
struct CodeTables {
  const char* codes;
  const char* events;
};
inline constexpr CodeTables kSmsCodeTables{"svc_sms_codes", "svc_sms_events"};             // sql/001, sql/009
inline constexpr CodeTables kEmailCodeTables{"svc_email_codes", "svc_email_code_events"};  // sql/011

// One-time codes of a user: SMS codes, and with kEmailCodeTables the
// e-mail sign-in codes (auth/email/code.hpp), which keep the same rules in
// tables of their own.
class SmsCodeRepo {
 public:
  explicit SmsCodeRepo(Database& db, CodeTables tables = kSmsCodeTables) : db_(db), tables_(tables) {}
  std::optional<SmsCode> find(long long user_id, const std::string& table);
  // Stores a new code unless one was stored less than `resend_seconds` ago
  // (then returns false and keeps the old one). One statement, so parallel
  // requests cannot both send a code.
  bool store(long long user_id, const std::string& table, const std::string& code_hash, long long expires_at,
             long long now, int resend_seconds);
  void remove(long long user_id, const std::string& table);

  // The rolling-window caps (issue 22). When at least `cap` events of `kind`
  // happened in (now - window, now], the seconds until the oldest of the
  // last `cap` leaves the window (>= 1); nullopt while below the cap.
  std::optional<long long> window_full(long long user_id, const std::string& table, SmsEvent kind, int cap,
                                       long long window, long long now);
  // Counts a code the gateway accepted (or a mail of `kind`), and drops the
  // user's events that have left the window (so the table holds at most a
  // day per user).
  void record_sent(long long user_id, const std::string& table, long long window, long long now,
                   SmsEvent kind = SmsEvent::kSent);

  // Spends one attempt of the user's live code (not spent, not expired at
  // `now`, fewer than limits.per_code used) and only then compares
  // `guess_hash` with it (constant time); a match spends the code, a miss is
  // recorded as a wrong guess of the user. One transaction holds the code
  // row's lock from the count to the verdict, so of any number of parallel
  // guesses at most the attempts left (of the code and of the window) are
  // ever compared, and a resend cannot swap the code in between. kDead: no
  // attempt was left, nothing was compared. kCapped: limits.per_window wrong
  // guesses in the window already; nothing was counted or compared. The
  // transaction runs again whole after a Galera certification failure
  // (with_transaction_retry). REQUIRES: no transaction open.
  SmsAttempt try_code(long long user_id, const std::string& table, const std::string& guess_hash,
                      const SmsGuessLimits& limits, long long now);

 private:
  SmsAttempt try_code_once(long long user_id, const std::string& table, const std::string& guess_hash,
                           const SmsGuessLimits& limits, long long now);
  int events_since(long long user_id, const std::string& table, SmsEvent kind, long long after);
  // `sql` with "$codes" and "$events" replaced by the tables' names.
  std::string named(std::string sql) const;
  Database& db_;
  CodeTables tables_;
};

}  // namespace svc::db
