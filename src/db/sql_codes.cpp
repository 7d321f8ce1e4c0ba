#include "db/sql_codes.hpp"

#include <cppconn/exception.h>

namespace svc::db {

int sql_code(const std::exception& e) {
  auto* se = dynamic_cast<const sql::SQLException*>(&e);
  return se ? se->getErrorCode() : 0;
}

}  // namespace svc::db
