#include "manage_api/replies.hpp"

#include "core/clock.hpp"

namespace svc::manage_api {

void success(http::JsonWriter& w) { w.open().kv("status", "Success"); }

http::Response reply(http::JsonWriter& w, int status) {
  w.close();
  return http::Response::json(status, w.str());
}

void write_time(http::JsonWriter& w, std::string_view key, long long unix_seconds) {
  if (unix_seconds <= 0) {
    w.kv_null(key);
  } else {
    w.kv(key, core::format_utc(unix_seconds, "%Y-%m-%dT%H:%M:%SZ"));
  }
}

void write_next(http::JsonWriter& w, const std::string& cursor) {
  if (cursor.empty()) {
    w.kv_null("next_cursor");
  } else {
    w.kv("next_cursor", cursor);
  }
}

void write_user(http::JsonWriter& w, const db::User& user) {
  w.open()
      .kv("id", user.id)
      .kv("email", user.email)
      .kv("first_name", user.first_name)
      .kv("last_name", user.last_name)
      .kv("role", user.role)
      .kv("active", user.active)
      .kv("email_verified", user.email_verified)
      .close();
}

}  // namespace svc::manage_api
