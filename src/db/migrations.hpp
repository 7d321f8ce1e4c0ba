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

// True when `recorded` (svc_schema_migrations.checksum) is m's checksum, or
// that of m's text without its ALGORITHM/LOCK clauses: a migration applied
// before those clauses were added to it is the same migration.
bool applied_as(const Migration& m, const std::string& recorded);

// The migrations not recorded in svc_schema_migrations (all of them when
// the table does not exist yet), in order. Reads only.
std::vector<Migration> pending_migrations(Database& db, const std::vector<Migration>& migrations);

// A statement of a pending migration that may copy or lock a table holding
// more than the allowed number of rows (online_ddl.hpp).
struct BlockingStatement {
  std::string migration;  // file name
  std::string statement;
  std::string table;
  long long rows = 0;  // counted up to max_rows + 1
  std::string reason;
};

// The statements of `pending` that are not online (check_ddl) on a table of
// more than max_rows rows. A table that does not exist yet counts 0 rows.
// Counting stops at max_rows + 1, so a large table costs one bounded scan.
std::vector<BlockingStatement> blocking_statements(Database& db, const std::vector<Migration>& pending,
                                                   long long max_rows);

// The statement's first non-blank line, for messages.
std::string one_line(const std::string& statement);

struct MigrateResult {
  int applied = 0;
  int skipped = 0;
};

// Applies every migration not yet recorded in svc_schema_migrations, in
// order, recording each. Running it again applies nothing. `progress` gets a
// human-readable line per file. An applied migration that only gained
// ALGORITHM/LOCK clauses since (applied_as) gets its new checksum recorded.
MigrateResult migrate(Database& db, const std::vector<Migration>& migrations,
                      const std::function<void(const std::string&)>& progress);

}  // namespace svc::db
