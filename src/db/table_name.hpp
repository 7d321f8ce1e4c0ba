#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svc::db {

// A table name that may be spliced into SQL. There are two ways to get one:
// allowlisted(), where the requested name must equal an entry of the
// configured allowlist (which config validation restricts to [A-Za-z0-9_]),
// and builtin_users(), a constant of this code base. Nothing else can make
// one, so a name a request sent is spliced only after the allowlist check.
class TableName {
 public:
  // The built-in `svc_users` table, for lookups whose table this code fixes
  // rather than a request names (a site's email_cc / email_bcc user ids
  // point into it whatever [auth] tables says). Never a request's choice.
  static TableName builtin_users();

  const std::string& str() const { return name_; }
  // `name` quoted for SQL.
  std::string quoted() const { return "`" + name_ + "`"; }

 private:
  friend std::optional<TableName> allowlisted(std::string_view, const std::vector<std::string>&);
  explicit TableName(std::string name) : name_(std::move(name)) {}
  std::string name_;
};

std::optional<TableName> allowlisted(std::string_view requested, const std::vector<std::string>& allowlist);

// True for a plain identifier ([A-Za-z0-9_], 1..64): the labels that may be
// stored (never spliced) as a record link's table name.
bool is_plain_identifier(std::string_view name);

}  // namespace svc::db
