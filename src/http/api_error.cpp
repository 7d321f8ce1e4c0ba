#include "http/api_error.hpp"

#include <rapidjson/document.h>

#include "http/json.hpp"

namespace svc::http {

ApiError ApiError::failed(int status, std::string_view message) {
  JsonWriter w;
  w.open().kv("status", "Failed").kv("message", message).close();
  return ApiError(status, w.str());
}

ApiError ApiError::too_many(std::string_view message, long long retry_after) {
  JsonWriter w;
  w.open().kv("status", "Failed").kv("message", message).kv("retry_after", retry_after).close();
  return ApiError(w.str(), retry_after);
}

ApiError ApiError::error(int status, std::string_view message) {
  JsonWriter w;
  w.open().kv("status", "Error").kv("message", message).close();
  return ApiError(status, w.str());
}

ApiError ApiError::validation(const std::vector<FieldError>& errors) {
  JsonWriter w;
  w.open().kv("status", "Failed").kv("message", "Validation error").open_array("errors");
  for (const auto& e : errors) w.open().kv("field", e.field).kv("message", e.message).close();
  w.close_array().close();
  return ApiError(400, w.str());
}

std::string ApiError::text() const {
  rapidjson::Document doc;
  doc.Parse(body_.data(), body_.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("message") || !doc["message"].IsString()) return body_;
  std::string out = doc["message"].GetString();
  if (doc.HasMember("errors") && doc["errors"].IsArray()) {
    for (const auto& e : doc["errors"].GetArray()) {
      if (!e.IsObject() || !e.HasMember("field") || !e.HasMember("message")) continue;
      out += std::string("; ") + e["field"].GetString() + ": " + e["message"].GetString();
    }
  }
  return out;
}

}  // namespace svc::http
