#include "db/failure.hpp"

#include <cppconn/exception.h>

#include "db/database.hpp"

namespace svc::db {

bool is_unavailable(const std::exception& e) {
  if (dynamic_cast<const DbUnavailable*>(&e)) return true;
  auto* se = dynamic_cast<const sql::SQLException*>(&e);
  if (!se) return false;
  // CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR,
  // CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED; ER_SERVER_SHUTDOWN.
  switch (se->getErrorCode()) {
    case 2002:
    case 2003:
    case 2006:
    case 2013:
    case 2055:
    case 1053:
      return true;
    default:
      return false;
  }
}

std::string_view failure_event(const std::exception& e) {
  return is_unavailable(e) ? "db_unavailable" : "unhandled_exception";
}

}  // namespace svc::db
