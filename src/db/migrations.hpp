#pragma once

#include <functional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

struct Migration {
  int version = 0;   // NNN of sql/NNN_name.sql
  std::string name;  // file name
  std::string sql;
  std::string checksum;  // hex of a hash of the text
};

// Reads sql/NNN_*.sql from dir, ordered by version. Throws std::runtime_error
// for a malformed file name or two files with one version.
std::vector<Migration> load_migrations(const std::string& dir);

// Splits a migration file into statements at semicolons that end a line.
// Migration files are trusted and keep to that convention.
std::vector<std::string> split_statements(const std::string& sql);

struct MigrateResult {
  int applied = 0;
  int skipped = 0;
};

// Applies every migration not yet recorded in svc_schema_migrations, in
// order, recording each. Running it again applies nothing. `progress` gets a
// human-readable line per file.
MigrateResult migrate(Database& db, const std::vector<Migration>& migrations,
                      const std::function<void(const std::string&)>& progress);

}  // namespace svc::db
