#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

// A merge query failed (syntax, permissions, time limit, not a SELECT). The
// message is for logs only; clients get a validation error on field SQL.
struct MergeQueryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using MergeRow = std::map<std::string, std::string>;

class MergeRepo {
 public:
  explicit MergeRepo(Database& db) : db_(db) {}
  // The SQL text of the site's admin-defined merge query `name`.
  std::optional<std::string> find_named(long long site_id, const std::string& name);
  // Admin only.
  void upsert(long long site_id, const std::string& name, const std::string& sql_text);
  std::map<std::string, std::string> list(long long site_id);

 private:
  Database& db_;
};

// The shape every merge query must have, checked by `svc-admin merge-query
// set` before it stores a query and by run_merge_select before it runs one,
// so the two never disagree: after leading blanks, the first word (its
// letters, any case) is SELECT or WITH (a common table expression, WITH ...
// SELECT). This is not the guard (the read-only account and transaction
// are); it refuses operator mistakes early with a clear message.
bool is_select_shaped(std::string_view sql_text);

// Runs one SELECT — the only place where SQL text that is not a constant of
// this code base runs, and only text an admin stored or a site with
// allow_sql_merge sent. Safety comes from the database, not from parsing:
// the statement runs inside START TRANSACTION READ ONLY (rolled back
// afterwards), with max_statement_time, as a single prepared statement (so
// `;`-chained statements cannot run). Named parameters `:name` are bound
// from `params` (missing ones as NULL). Returns the first row (column label
// → text, NULL → ""), or an empty row when there is none.
// REQUIRES: `db` is the read-only [database.merge] connection, never the
// application's: it is reset after every query (so no session state of one
// site's query reaches the next), which also drops its statement cache.
// Throws MergeQueryError when the text is not is_select_shaped or the
// database refuses or cuts off the statement.
MergeRow run_merge_select(Database& db, const std::string& sql_text, const std::map<std::string, std::string>& params,
                          int timeout_ms);

// `:name` placeholders → `?`, outside quotes; the names in order.
std::string bind_named_parameters(const std::string& sql_text, std::vector<std::string>& names);

}  // namespace svc::db
