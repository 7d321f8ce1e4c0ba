#include "admin/merge_query_commands.hpp"

#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "core/text.hpp"
#include "db/merge_repo.hpp"

namespace svc::admin {
namespace {

// Whitespace runs become one space: a stored query on one output line.
std::string one_line(const std::string& s) {
  std::string out;
  bool blank = false;
  for (char c : s) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && !out.empty()) blank = true;
    if (space) continue;
    if (blank) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

int cmd_merge_query_set(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "name", "sql-file"});
  const long long site_id = args.required_integer("site");
  const std::string name = args.required("name");
  check_name("name", name);
  const std::string path = args.required("sql-file");
  std::string sql_text = read_text_file("sql-file", path);
  // A quick check for operator mistakes; the real guard is that merge queries
  // run on the read-only [database.merge] account (db/merge_repo).
  while (!sql_text.empty() && std::isspace(static_cast<unsigned char>(sql_text.back()))) sql_text.pop_back();
  if (!sql_text.empty() && sql_text.back() == ';') sql_text.pop_back();
  const auto start = sql_text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) throw std::runtime_error("--sql-file " + path + " is empty");
  sql_text = sql_text.substr(start);
  if (!db::is_select_shaped(sql_text)) {
    throw std::runtime_error("--sql-file " + path + " must hold a single SELECT (or WITH ... SELECT) statement");
  }
  if (sql_text.find(';') != std::string::npos) {
    throw std::runtime_error("--sql-file " + path + " holds more than one statement (';')");
  }
  if (!core::is_valid_utf8(sql_text)) throw std::runtime_error("--sql-file " + path + " is not UTF-8");

  CommandEnv env(config_path);
  env.site(site_id);
  db::MergeRepo repo(env.db);
  const bool existed = repo.find_named(site_id, name).has_value();
  repo.upsert(site_id, name, sql_text);
  std::printf("merge query '%s' of site %lld %s\n", name.c_str(), site_id, existed ? "updated" : "created");
  return 0;
}

int cmd_merge_query_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  CommandEnv env(config_path);
  const db::Site site = env.site(args.required_integer("site"));
  return print_listing(
      db::MergeRepo(env.db).list(site.id), "no merge queries for site " + std::to_string(site.id), "name\tsql",
      [](const auto& query) { std::printf("%s\t%s\n", query.first.c_str(), one_line(query.second).c_str()); });
}

}  // namespace svc::admin
