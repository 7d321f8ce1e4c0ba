#include "db/table_name.hpp"

#include <algorithm>
#include <cctype>

namespace svc::db {

TableName TableName::builtin_users() { return TableName("svc_users"); }

std::optional<TableName> allowlisted(std::string_view requested, const std::vector<std::string>& allowlist) {
  for (const auto& allowed : allowlist) {
    if (requested == allowed && is_plain_identifier(allowed)) return TableName(allowed);
  }
  return std::nullopt;
}

bool is_plain_identifier(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace svc::db
