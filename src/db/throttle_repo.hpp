#pragma once

#include <optional>
#include <string>

#include "db/database.hpp"

namespace svc::db {

// Failed-login counters per (auth table, e-mail), in the database so every
// worker on every host shares them. A window opens at the first failure;
// reaching max_failures inside it locks the account until the window ends.
class ThrottleRepo {
 public:
  explicit ThrottleRepo(Database& db) : db_(db) {}

  // Seconds until the lock ends, or nullopt when not locked.
  std::optional<long long> locked_for(const std::string& table, const std::string& email, long long now);
  void record_failure(const std::string& table, const std::string& email, long long now, int max_failures,
                      int window_seconds);
  void reset(const std::string& table, const std::string& email);

 private:
  Database& db_;
};

}  // namespace svc::db
