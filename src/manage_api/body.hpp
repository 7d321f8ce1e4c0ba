#pragma once
// Reading the JSON object body of a management API change (the members a
// route takes, each of one type; anything else is a 400 naming the member)
// and writing the lists and optional strings its replies carry.

#include <rapidjson/document.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "http/json.hpp"

namespace svc::manage_api {

// 400 (field: the member) for a member not in `names`.
void only_members(const rapidjson::Value& body, std::initializer_list<const char*> names);
// Absent: nullopt; otherwise true or false, else 400.
std::optional<bool> optional_bool(const rapidjson::Value& body, const char* name);
// Absent: nullopt; otherwise an integer, else 400.
std::optional<long long> optional_integer(const rapidjson::Value& body, const char* name);
// Absent: nullopt; null: "" (none); otherwise a string of at most
// `max_bytes`, else 400.
std::optional<std::string> nullable_string(const rapidjson::Value& body, const char* name, size_t max_bytes);
// Absent: nullopt; otherwise an array of at most `max_items` strings of at
// most `max_bytes` each, else 400.
std::optional<std::vector<std::string>> optional_strings(const rapidjson::Value& body, const char* name,
                                                         size_t max_items, size_t max_bytes);

// "key": value, or null when value is "".
void write_nullable(http::JsonWriter& w, std::string_view key, const std::string& value);
// "key": [values...].
void write_strings(http::JsonWriter& w, std::string_view key, const std::vector<std::string>& values);

}  // namespace svc::manage_api
