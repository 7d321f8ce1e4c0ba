#pragma once

#include <exception>
#include <string_view>

namespace svc::db {

// True when `e` means the database cannot be reached: DbUnavailable (no
// connection could be made) or a Connector/C++ error whose code says the
// connection was lost or the server is going away.
bool is_unavailable(const std::exception& e);

// The log event for an exception that reached a catch-all: "db_unavailable"
// when is_unavailable(e), otherwise "unhandled_exception".
std::string_view failure_event(const std::exception& e);

}  // namespace svc::db
