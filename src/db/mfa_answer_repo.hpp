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

  // Counts one answer of the user as wrong at `now` and returns its row id.
  // Never re-run after a lost connection (a second row would count the
  // answer twice).
  long long add(const std::string& table, long long user_id, long long now);
  // When the user's answers counted before row `id` (smaller ids) happened,
  // of those after `after`, oldest first.
  std::vector<long long> times_before(const std::string& table, long long user_id, long long id, long long after);
  // Takes back the user's answer of row `id`, and drops the user's rows at
  // or before `forget_before` (no longer counted) in the same statement: a
  // user's rows are pruned whenever one is taken back, which every right
  // answer and every answer refused by a lock does, so they stay within a
  // day's wrong answers plus those since.
  void remove(const std::string& table, long long user_id, long long id, long long forget_before);

 private:
  Database& db_;
};

}  // namespace svc::db
