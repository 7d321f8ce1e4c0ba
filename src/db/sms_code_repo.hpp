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

// The verdict on one guess: kWrong carries the attempts still left.
struct SmsAttempt {
  enum class Outcome { kDead, kWrong, kVerified };
  Outcome outcome = Outcome::kDead;
  int attempts_left = 0;
};

class SmsCodeRepo {
 public:
  explicit SmsCodeRepo(Database& db) : db_(db) {}
  std::optional<SmsCode> find(long long user_id, const std::string& table);
  // Stores a new code unless one was stored less than `resend_seconds` ago
  // (then returns false and keeps the old one). One statement, so parallel
  // requests cannot both send a code.
  bool store(long long user_id, const std::string& table, const std::string& code_hash, long long expires_at,
             long long now, int resend_seconds);
  void remove(long long user_id, const std::string& table);

  // Spends one attempt of the user's live code (not spent, not expired at
  // `now`, fewer than max_attempts used) and only then compares `guess_hash`
  // with it (constant time); a match spends the code. One transaction holds
  // the row's lock from the count to the verdict, so of any number of
  // parallel guesses at most the attempts left are ever compared, and a
  // resend cannot swap the code in between. kDead: no attempt was left,
  // nothing was compared. The transaction runs again whole after a Galera
  // certification failure (with_transaction_retry). REQUIRES: no
  // transaction open.
  SmsAttempt try_code(long long user_id, const std::string& table, const std::string& guess_hash, int max_attempts,
                      long long now);

 private:
  SmsAttempt try_code_once(long long user_id, const std::string& table, const std::string& guess_hash, int max_attempts,
                           long long now);
  Database& db_;
};

}  // namespace svc::db
