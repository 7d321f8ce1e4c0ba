#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/api_error.hpp"

namespace svc::http {

// Collects field errors while reading a JSON object body, then throws one
// 400 Validation error listing all of them:
//   Fields f(req.json);
//   auto email = f.required_string("email");
//   f.throw_if_errors();
class Fields {
 public:
  explicit Fields(const rapidjson::Value& body) : body_(body) {}

  // Missing, null or "" → "<name> is required"; not a string → "<name> must be a string".
  std::optional<std::string> required_string(const char* name, size_t max_bytes = 4096);
  // Absent or null → nullopt without error; not a string → error.
  std::optional<std::string> optional_string(const char* name, size_t max_bytes = 4096);
  // A positive integer given as a JSON number or a decimal string.
  std::optional<long long> required_id(const char* name);
  std::optional<long long> optional_id(const char* name);
  // Absent or null → nullptr; not an object → error.
  const rapidjson::Value* optional_object(const char* name);
  const rapidjson::Value* required_object(const char* name);

  void add(std::string field, std::string message);
  bool has_error(const std::string& field) const;
  bool ok() const { return errors_.empty(); }
  void throw_if_errors() const {
    if (!errors_.empty()) throw ApiError::validation(errors_);
  }

 private:
  const rapidjson::Value* member(const char* name) const;
  std::optional<long long> id(const char* name, bool required);

  const rapidjson::Value& body_;
  std::vector<FieldError> errors_;
};

// Pragmatic check of a bare address "local@domain.tld": ASCII only, no
// spaces, controls or any of <>()[],;:"\ ; total <= 254, local part 1..64
// without leading, trailing or doubled dots; domain of >= 2 labels, each
// 1..63 of [A-Za-z0-9-] not starting or ending with '-', the last one not
// all digits. Quoted local parts, address literals and raw IDN are rejected.
bool is_valid_email(std::string_view address);

}  // namespace svc::http
