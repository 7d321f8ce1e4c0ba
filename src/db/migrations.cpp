#include "db/migrations.hpp"

#include <sodium.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

namespace svc::db {
namespace {

std::string hex_hash(const std::string& text) {
  unsigned char h[16];
  crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(text.data()), text.size(), nullptr, 0);
  char hex[sizeof h * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, h, sizeof h);
  return hex;
}

}  // namespace

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
  std::map<int, std::string> applied;
  auto rows = db.rows("SELECT version, checksum FROM svc_schema_migrations", kNoParams, [](RowReader& r) {
    const auto version = static_cast<int>(r.integer());
    return std::pair(version, r.text());
  });
  for (auto& [version, checksum] : rows) applied[version] = std::move(checksum);

  MigrateResult result;
  for (const auto& m : migrations) {
    auto it = applied.find(m.version);
    if (it != applied.end()) {
      ++result.skipped;
      if (it->second != m.checksum) {
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
