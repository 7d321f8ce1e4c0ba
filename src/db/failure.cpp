#include "db/failure.hpp"

#include "db/errors.hpp"
#include "db/sql_codes.hpp"

namespace svc::db {

bool is_unavailable(const std::exception& e) {
  if (dynamic_cast<const DbUnavailable*>(&e)) return true;
  const int code = sql_code(e);
  return is_connection_lost(code) || code == kServerShutdown;
}

std::string_view failure_event(const std::exception& e) {
  return is_unavailable(e) ? "db_unavailable" : "unhandled_exception";
}

}  // namespace svc::db
