#pragma once

#include <optional>
#include <string>

#include "db/database.hpp"

namespace svc::db {

// Failed-login counters per (auth table, e-mail), in the database so every
// worker on every host shares them. A window opens at the first attempt;
// reaching max_failures attempts inside it without a success locks the
// account until the window ends.
class ThrottleRepo {
 public:
  explicit ThrottleRepo(Database& db) : db_(db) {}

  // Counts this login attempt before its password is checked, and tells
  // whether it may go ahead: nullopt when it may, else the seconds until the
  // lock ends. The count and the check are one statement (the INSERT that
  // creates the row, or else one UPDATE), so parallel attempts
  // cannot all pass a check made before any of them was counted: at most
  // max_failures attempts are checked per window. A login that then
  // succeeds calls reset(), which forgets the count.
  std::optional<long long> claim_attempt(const std::string& table, const std::string& email, long long now,
                                         int max_failures, int window_seconds);
  void reset(const std::string& table, const std::string& email);
  // Takes back the count of one claimed attempt that proved to be no failure
  // but did not finish the login either (a right password that still needs
  // the second factor): earlier failures, and wrong codes after it, still count.
  void release(const std::string& table, const std::string& email, int max_failures);

 private:
  // The UPDATE that counts an attempt on an existing row, unless it is
  // locked; 1 when it counted, 0 when locked (or the row is gone).
  int count_on_row(const std::string& table, const std::string& email, long long now, int max_failures,
                   int window_seconds);

  Database& db_;
};

}  // namespace svc::db
