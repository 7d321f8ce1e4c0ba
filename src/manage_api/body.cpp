#include "manage_api/body.hpp"

#include <algorithm>

#include "http/api_error.hpp"

namespace svc::manage_api {
namespace {

const rapidjson::Value* member(const rapidjson::Value& body, const char* name) {
  auto it = body.FindMember(name);
  return it == body.MemberEnd() ? nullptr : &it->value;
}

}  // namespace

void only_members(const rapidjson::Value& body, std::initializer_list<const char*> names) {
  for (auto it = body.MemberBegin(); it != body.MemberEnd(); ++it) {
    const std::string name(it->name.GetString(), it->name.GetStringLength());
    if (std::none_of(names.begin(), names.end(), [&](const char* n) { return name == n; })) {
      throw http::ApiError::validation(name.substr(0, 64), "Unknown member");
    }
  }
}

std::optional<bool> optional_bool(const rapidjson::Value& body, const char* name) {
  const auto* v = member(body, name);
  if (!v) return std::nullopt;
  if (!v->IsBool()) throw http::ApiError::validation(name, std::string(name) + " must be true or false");
  return v->GetBool();
}

std::optional<long long> optional_integer(const rapidjson::Value& body, const char* name) {
  const auto* v = member(body, name);
  if (!v) return std::nullopt;
  if (!v->IsInt64()) throw http::ApiError::validation(name, std::string(name) + " must be an integer");
  return v->GetInt64();
}

std::optional<std::string> nullable_string(const rapidjson::Value& body, const char* name, size_t max_bytes) {
  const auto* v = member(body, name);
  if (!v) return std::nullopt;
  if (v->IsNull()) return std::string();
  if (!v->IsString() || v->GetStringLength() > max_bytes) {
    throw http::ApiError::validation(
        name, std::string(name) + " must be a string of at most " + std::to_string(max_bytes) + " bytes");
  }
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<std::vector<std::string>> optional_strings(const rapidjson::Value& body, const char* name,
                                                         size_t max_items, size_t max_bytes) {
  const auto* v = member(body, name);
  if (!v) return std::nullopt;
  const std::string shape = std::string(name) + " must be an array of at most " + std::to_string(max_items) +
                            " strings of at most " + std::to_string(max_bytes) + " bytes";
  if (!v->IsArray() || v->Size() > max_items) throw http::ApiError::validation(name, shape);
  std::vector<std::string> out;
  for (const auto& item : v->GetArray()) {
    if (!item.IsString() || item.GetStringLength() > max_bytes) throw http::ApiError::validation(name, shape);
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

void write_nullable(http::JsonWriter& w, std::string_view key, const std::string& value) {
  if (value.empty()) {
    w.kv_null(key);
  } else {
    w.kv(key, value);
  }
}

void write_strings(http::JsonWriter& w, std::string_view key, const std::vector<std::string>& values) {
  w.open_array(key);
  for (const auto& v : values) w.s(v);
  w.close_array();
}

}  // namespace svc::manage_api
