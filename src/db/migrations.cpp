#include "db/migrations.hpp"

#include <sodium.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "db/online_ddl.hpp"
#include "db/table_name.hpp"

namespace svc::db {
namespace {

std::string hex_hash(const std::string& text) {
  unsigned char h[16];
  crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(text.data()), text.size(), nullptr, 0);
  char hex[sizeof h * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, h, sizeof h);
  return hex;
}

bool table_exists(Database& db, const std::string& table) {
  return db.one(
               "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
               [&](Params& p) { p.text(table); }, [](RowReader& r) { return r.integer(); })
             .value_or(0) > 0;
}

// The applied versions and their recorded checksums; empty when the table
// does not exist yet.
std::map<int, std::string> recorded_migrations(Database& db) {
  std::map<int, std::string> applied;
  if (!table_exists(db, "svc_schema_migrations")) return applied;
  auto rows = db.rows("SELECT version, checksum FROM svc_schema_migrations", kNoParams, [](RowReader& r) {
    const auto version = static_cast<int>(r.integer());
    return std::pair(version, r.text());
  });
  for (auto& [version, checksum] : rows) applied[version] = std::move(checksum);
  return applied;
}

// Rows of `table`, counted up to `limit`. The name comes from a trusted
// migration file; it is still checked to be a plain identifier before it
// is quoted into the SQL.
long long bounded_rows(Database& db, const std::string& table, long long limit) {
  if (!is_plain_identifier(table)) throw std::runtime_error("migration names an unusual table '" + table + "'");
  if (!table_exists(db, table)) return 0;
  return db
      .one(
          "SELECT COUNT(*) FROM (SELECT 1 FROM `" + table + "` LIMIT ?) AS counted",
          [&](Params& p) { p.integer(limit); }, [](RowReader& r) { return r.integer(); })
      .value_or(0);
}

}  // namespace

std::string one_line(const std::string& statement) {
  std::string out;
  for (char c : statement) {
    const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (!space) {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool applied_as(const Migration& m, const std::string& recorded) {
  return recorded == m.checksum || recorded == hex_hash(without_online_clauses(m.sql));
}

std::vector<Migration> pending_migrations(Database& db, const std::vector<Migration>& migrations) {
  const auto applied = recorded_migrations(db);
  std::vector<Migration> out;
  for (const auto& m : migrations) {
    if (!applied.count(m.version)) out.push_back(m);
  }
  return out;
}

std::vector<BlockingStatement> blocking_statements(Database& db, const std::vector<Migration>& pending,
                                                   long long max_rows) {
  std::vector<BlockingStatement> out;
  for (const auto& m : pending) {
    for (const auto& statement : split_statements(m.sql)) {
      const DdlCheck check = check_ddl(statement);
      if (check.online) continue;
      const long long rows = bounded_rows(db, check.table, max_rows + 1);
      if (rows > max_rows) out.push_back({m.name, statement, check.table, rows, check.reason});
    }
  }
  return out;
}

std::vector<Migration> load_migrations(const std::string& dir) {
  std::map<int, Migration> by_version;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".sql") continue;
    size_t underscore = name.find('_');
    if (underscore == 0 || underscore == std::string::npos ||
        !std::all_of(name.begin(), name.begin() + static_cast<long>(underscore), ::isdigit)) {
      continue;  // not a migration (e.g. seed files)
    }
    Migration m;
    m.version = std::stoi(name.substr(0, underscore));
    m.name = name;
    std::ifstream f(entry.path());
    std::ostringstream ss;
    ss << f.rdbuf();
    m.sql = ss.str();
    m.checksum = hex_hash(m.sql);
    if (by_version.count(m.version)) {
      throw std::runtime_error("two migrations with version " + std::to_string(m.version) + ": " +
                               by_version[m.version].name + " and " + name);
    }
    by_version[m.version] = std::move(m);
  }
  std::vector<Migration> out;
  for (auto& [v, m] : by_version) out.push_back(std::move(m));
  return out;
}

std::vector<std::string> split_statements(const std::string& sql) {
  std::vector<std::string> out;
  std::istringstream in(sql);
  std::string line;
  std::string current;
  while (std::getline(in, line)) {
    std::string trimmed = line;
    trimmed.erase(0, trimmed.find_first_not_of(" \t"));
    if (trimmed.rfind("--", 0) == 0) continue;
    current += line + "\n";
    size_t end = line.find_last_not_of(" \t\r");
    if (end != std::string::npos && line[end] == ';') {
      out.push_back(current);
      current.clear();
    }
  }
  if (current.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(current);
  return out;
}

MigrateResult migrate(Database& db, const std::vector<Migration>& migrations,
                      const std::function<void(const std::string&)>& progress) {
  db.execute_trusted(
      "CREATE TABLE IF NOT EXISTS svc_schema_migrations ("
      " version INT NOT NULL PRIMARY KEY,"
      " name VARCHAR(255) NOT NULL,"
      " checksum CHAR(32) NOT NULL,"
      " applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
  const auto applied = recorded_migrations(db);

  MigrateResult result;
  for (const auto& m : migrations) {
    auto it = applied.find(m.version);
    if (it != applied.end()) {
      ++result.skipped;
      if (it->second == m.checksum) continue;
      if (applied_as(m, it->second)) {
        db.execute("UPDATE svc_schema_migrations SET checksum = ? WHERE version = ?",
                   [&](Params& p) { p.text(m.checksum).integer(m.version); });
        progress("migrate: " + m.name + " gained ALGORITHM/LOCK clauses since it was applied; checksum updated");
      } else {
        progress("migrate: warning: " + m.name + " changed after it was applied (not re-run)");
      }
      continue;
    }
    progress("migrate: applying " + m.name);
    for (const auto& statement : split_statements(m.sql)) db.execute_trusted(statement);
    db.execute("INSERT INTO svc_schema_migrations (version, name, checksum) VALUES (?, ?, ?)",
               [&](Params& p) { p.integer(m.version).text(m.name).text(m.checksum); });
    ++result.applied;
  }
  progress("migrate: " + std::to_string(result.applied) + " applied, " + std::to_string(result.skipped) +
           " already present");
  return result;
}

}  // namespace svc::db
