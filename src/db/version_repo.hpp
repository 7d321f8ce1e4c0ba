#pragma once

#include <string>

#include "db/database.hpp"

namespace svc::db {

// svc_versions: an audit copy of a record (JSON snapshot without secrets).
class VersionRepo {
 public:
  explicit VersionRepo(Database& db) : db_(db) {}
  void record(const std::string& table, long long record_id, const std::string& action, const std::string& snapshot);

 private:
  Database& db_;
};

}  // namespace svc::db
