#pragma once

#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

// Wrong answers to a user's second factor (svc_mfa_wrong_answers, sql/019):
// what the per-account lock of auth/mfa/guard.hpp counts. An answer is
// counted before it is checked and taken back when it proves right.
class MfaAnswerRepo {
 public:
  explicit MfaAnswerRepo(Database& db) : db_(db) {}

  // Counts one answer of the user as wrong at `now` and returns its row id;
  // drops the user's rows at or before `forget_before`. Never re-run after a
  // lost connection (a second row would count the answer twice).
  long long add(const std::string& table, long long user_id, long long now, long long forget_before);
  // When the user's answers counted before row `id` (smaller ids) happened,
  // of those after `after`, oldest first.
  std::vector<long long> times_before(const std::string& table, long long user_id, long long id, long long after);
  // Takes back the answer of row `id`.
  void remove(long long id);

 private:
  Database& db_;
};

}  // namespace svc::db
