#include "db/merge_repo.hpp"

#include <cppconn/exception.h>
#include <cppconn/resultset_metadata.h>

#include <cctype>
#include <cstdio>

namespace svc::db {
namespace {

// What may precede a merge query's first word.
constexpr const char* kBlanks = " \t\r\n\f\v";

}  // namespace

std::optional<std::string> MergeRepo::find_named(long long site_id, const std::string& name) {
  return db_.one(
      "SELECT sql_text FROM svc_merge_queries WHERE site_id = ? AND name = ?",
      [&](Params& p) { p.integer(site_id).text(name); }, [](RowReader& r) { return r.text(); });
}

void MergeRepo::upsert(long long site_id, const std::string& name, const std::string& sql_text) {
  db_.execute(
      "INSERT INTO svc_merge_queries (site_id, name, sql_text) VALUES (?, ?, ?)"
      " ON DUPLICATE KEY UPDATE sql_text = VALUES(sql_text)",
      [&](Params& p) { p.integer(site_id).text(name).text(sql_text); });
}

std::map<std::string, std::string> MergeRepo::list(long long site_id) {
  auto named = db_.rows(
      "SELECT name, sql_text FROM svc_merge_queries WHERE site_id = ? ORDER BY name",
      [&](Params& p) { p.integer(site_id); },
      [](RowReader& r) {
        std::string n = r.text();
        return std::make_pair(n, r.text());
      });
  return {named.begin(), named.end()};
}

std::string bind_named_parameters(const std::string& text, std::vector<std::string>& names) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size())
        out.push_back(text[++i]);
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      quote = c;
      out.push_back(c);
      continue;
    }
    bool starts_name =
        i + 1 < text.size() && (std::isalpha(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '_');
    bool after_colon = i > 0 && text[i - 1] == ':';
    if (c == ':' && starts_name && !after_colon) {
      size_t j = i + 1;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      names.push_back(text.substr(i + 1, j - i - 1));
      out.push_back('?');
      i = j - 1;
      continue;
    }
    out.push_back(c);
  }
  return out;
}

bool is_select_shaped(std::string_view sql_text) {
  const size_t start = sql_text.find_first_not_of(kBlanks);
  if (start == std::string_view::npos) return false;
  std::string first_word;
  for (char c : sql_text.substr(start)) {
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
    first_word.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return first_word == "SELECT" || first_word == "WITH";
}

MergeRow run_merge_select(Database& db, const std::string& sql_text, const std::map<std::string, std::string>& params,
                          int timeout_ms) {
  if (!is_select_shaped(sql_text)) throw MergeQueryError("merge query is not a SELECT (or WITH ... SELECT)");
  const size_t start = sql_text.find_first_not_of(kBlanks);

  std::vector<std::string> names;
  std::string bound = bind_named_parameters(sql_text.substr(start), names);
  char limit[64];
  std::snprintf(limit, sizeof limit, "SET STATEMENT max_statement_time=%.3f FOR ", timeout_ms / 1000.0);

  MergeRow row;
  try {
    db.begin_read_only();
    auto st = db.prepare_uncached(limit + bound);
    for (size_t i = 0; i < names.size(); ++i) {
      auto it = params.find(names[i]);
      if (it == params.end())
        st->setNull(static_cast<unsigned>(i + 1), 0);
      else
        st->setString(static_cast<unsigned>(i + 1), it->second);
    }
    std::unique_ptr<sql::ResultSet> rs(st->executeQuery());
    if (rs->next()) {
      sql::ResultSetMetaData* meta = rs->getMetaData();
      for (unsigned i = 1; i <= meta->getColumnCount(); ++i) {
        row[meta->getColumnLabel(i)] = rs->isNull(i) ? "" : std::string(rs->getString(i));
      }
    }
  } catch (const sql::SQLException& e) {
    // A fresh connection next time: no user variable, lock or session
    // setting of one site's query survives into another's.
    db.reset();
    throw MergeQueryError(std::string("merge query failed: ") + e.what());
  }
  db.reset();
  return row;
}

}  // namespace svc::db
