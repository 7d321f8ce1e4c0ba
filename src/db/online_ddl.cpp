#include "db/online_ddl.hpp"

#include <regex>

namespace svc::db {
namespace {

constexpr auto kIcase = std::regex::icase | std::regex::ECMAScript;

// The statement's leading words up to its table: ALTER [ONLINE] [IGNORE]
// TABLE [IF EXISTS] t, CREATE [OR REPLACE] [ONLINE] [UNIQUE|FULLTEXT|SPATIAL]
// INDEX [IF NOT EXISTS] i ON t, DROP INDEX [IF EXISTS] i ON t. A name may be
// `quoted` and schema-qualified; the table is its last part.
const std::regex kAlter(
    R"(^\s*ALTER\s+(ONLINE\s+)?(IGNORE\s+)?TABLE\s+(IF\s+EXISTS\s+)?((`[^`]+`|\w+)\.)?(`[^`]+`|\w+))", kIcase);
const std::regex kIndex(
    R"(^\s*(CREATE\s+(OR\s+REPLACE\s+)?(ONLINE\s+)?((UNIQUE|FULLTEXT|SPATIAL)\s+)?|DROP\s+)INDEX\s+(IF\s+(NOT\s+)?EXISTS\s+)?(`[^`]+`|\w+)\s+ON\s+((`[^`]+`|\w+)\.)?(`[^`]+`|\w+))",
    kIcase);
const std::regex kAlgorithm(R"(\bALGORITHM\s*=\s*(\w+))", kIcase);
const std::regex kLock(R"(\bLOCK\s*=\s*(\w+))", kIcase);
const std::regex kClause(R"(,\s*(ALGORITHM|LOCK)\s*=\s*\w+)", kIcase);

std::string unquoted(const std::string& name) {
  return name.size() >= 2 && name.front() == '`' ? name.substr(1, name.size() - 2) : name;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Drops `-- comment` lines, which may name the clauses in prose.
std::string code_lines(const std::string& sql) {
  static const std::regex kComment(R"((^|\n)\s*--[^\n]*)");
  return std::regex_replace(sql, kComment, "$1");
}

std::string clause(const std::string& sql, const std::regex& re) {
  std::smatch m;
  return std::regex_search(sql, m, re) ? upper(m[1].str()) : std::string();
}

}  // namespace

DdlCheck check_ddl(const std::string& statement) {
  const std::string sql = code_lines(statement);
  DdlCheck out;
  std::smatch m;
  bool online_keyword = false;
  if (std::regex_search(sql, m, kAlter)) {
    out.table = unquoted(m[6].str());
    online_keyword = m[1].matched;
  } else if (std::regex_search(sql, m, kIndex)) {
    out.table = unquoted(m[11].str());
    online_keyword = m[3].matched;
  } else {
    return out;
  }
  const std::string algorithm = clause(sql, kAlgorithm);
  const std::string lock = online_keyword ? std::string("NONE") : clause(sql, kLock);
  if (algorithm == "COPY") {
    out.reason = "ALGORITHM=COPY copies the table and blocks its writers until done";
  } else if (lock == "SHARED") {
    out.reason = "LOCK=SHARED blocks the table's writers until done";
  } else if (lock == "EXCLUSIVE") {
    out.reason = "LOCK=EXCLUSIVE blocks the table's readers and writers until done";
  } else if (algorithm == "INSTANT" || lock == "NONE") {
    return out;
  } else if (algorithm.empty()) {
    out.reason = "no ALGORITHM=INSTANT or LOCK=NONE: MariaDB may copy or lock the table";
  } else {
    out.reason = "ALGORITHM=" + algorithm + " without LOCK=NONE may lock the table";
  }
  out.online = false;
  return out;
}

std::string without_online_clauses(const std::string& sql) { return std::regex_replace(sql, kClause, ""); }

}  // namespace svc::db
