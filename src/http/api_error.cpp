#include "http/api_error.hpp"

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

}  // namespace svc::http
