#include "db/user_pool_ddl.hpp"

namespace svc::db {
namespace {

long long count(Database& db, const char* sql, const std::string& table) {
  return db
      .one(
          sql, [&](Params& p) { p.text(table); }, [](RowReader& r) { return r.integer(); })
      .value_or(0);
}

// The unique keys of `table` and their columns in order ("pool_id,user_email").
std::vector<std::pair<std::string, std::string>> unique_keys(Database& db, const std::string& table) {
  return db.rows(
      "SELECT index_name, GROUP_CONCAT(column_name ORDER BY seq_in_index) FROM information_schema.statistics"
      " WHERE table_schema = DATABASE() AND table_name = ? AND non_unique = 0 AND index_name <> 'PRIMARY'"
      " GROUP BY index_name ORDER BY index_name",
      [&](Params& p) { p.text(table); },
      [](RowReader& r) {
        std::string name = r.text();
        return std::make_pair(name, r.text());
      });
}

}  // namespace

std::vector<std::string> user_pool_ddl(Database& db, const TableName& table) {
  std::vector<std::string> out;
  if (count(db, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
            table.str()) == 0) {
    return out;
  }
  if (count(db,
            "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?"
            " AND column_name = 'pool_id'",
            table.str()) == 0) {
    out.push_back("ALTER TABLE " + table.quoted() +
                  " ADD COLUMN IF NOT EXISTS pool_id BIGINT UNSIGNED NOT NULL DEFAULT 1, ALGORITHM=INSTANT");
  }
  bool pooled = false;
  std::vector<std::string> address_only;
  for (const auto& [name, columns] : unique_keys(db, table.str())) {
    if (columns == "pool_id,user_email") pooled = true;
    // Index names come from information_schema; quoted with backticks
    // doubled, as any identifier.
    if (columns == "user_email") address_only.push_back(name);
  }
  std::string changes;
  if (!pooled) changes += " ADD UNIQUE KEY uq_pool_email (pool_id, user_email)";
  for (const auto& name : address_only) {
    std::string quoted;
    for (char c : name) quoted += c == '`' ? std::string("``") : std::string(1, c);
    changes += std::string(changes.empty() ? "" : ",") + " DROP KEY `" + quoted + "`";
  }
  if (!changes.empty()) out.push_back("ALTER TABLE " + table.quoted() + changes + ", ALGORITHM=INPLACE, LOCK=NONE");
  return out;
}

}  // namespace svc::db
