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
  // Counts a wrong guess; false when the code was already dead (spent or out of attempts).
  bool count_failure(long long user_id, const std::string& table, int max_attempts);
  // Marks the code spent; true only for the one caller that spends it.
  bool spend(long long user_id, const std::string& table, const std::string& code_hash);

 private:
  Database& db_;
};

}  // namespace svc::db
