#pragma once
// How the management API writes what it returns: {"status":"Success", ...},
// times as RFC 3339 UTC text (null for none), never a secret.

#include <string_view>

#include "db/user_repo.hpp"
#include "http/json.hpp"
#include "http/response.hpp"
#include "manage/page.hpp"

namespace svc::manage_api {

// Opens the reply's object and writes "status":"Success".
void success(http::JsonWriter& w);
// Closes the object and answers 200 (or `status`).
http::Response reply(http::JsonWriter& w, int status = 200);

// "2026-11-29T10:00:00Z"; null when `unix_seconds` is 0.
void write_time(http::JsonWriter& w, std::string_view key, long long unix_seconds);
// "next_cursor": the cursor, or null on the last page.
void write_next(http::JsonWriter& w, const std::string& cursor);
// A user's public fields as an object (no password, no token version).
void write_user(http::JsonWriter& w, const db::User& user);

}  // namespace svc::manage_api
