#pragma once
// Whether a migration statement may copy or lock an existing table while it
// runs (issue 30, docs/deploy.md "Upgrades"). A pure reading of the SQL
// text: svc-admin migrate pairs it with the table's size and refuses a
// blocking statement on a large table.
//
// A statement is online when it states ALGORITHM=INSTANT or LOCK=NONE (with
// either, MariaDB fails the statement rather than block: it never falls
// back to a copy or a lock), and no ALGORITHM=COPY, LOCK=SHARED or
// LOCK=EXCLUSIVE. The clauses are read as `NAME=VALUE` (spaces allowed
// around `=`); `ALTER ONLINE TABLE` counts as LOCK=NONE.

#include <string>

namespace svc::db {

struct DdlCheck {
  // The existing table whose structure the statement changes (ALTER TABLE,
  // CREATE/DROP INDEX ... ON); empty for any other statement (CREATE TABLE,
  // INSERT, ...), which never blocks an existing table's readers and writers.
  std::string table;
  bool online = true;
  std::string reason;  // why it may copy or lock the table, when !online
};

DdlCheck check_ddl(const std::string& statement);

// `sql` without its ", ALGORITHM=X" and ", LOCK=Y" clauses. Those clauses
// change how a statement runs, not the schema it leaves, so a migration
// applied before they were added is the same migration (migrations.hpp).
std::string without_online_clauses(const std::string& sql);

}  // namespace svc::db
