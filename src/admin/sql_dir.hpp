#pragma once
// Where svc-admin finds the migrations (sql/NNN_*.sql) when no --sql-dir is
// given, in this order:
//   1. $SVC_SQL_DIR, when set and not empty;
//   2. <directory of the executable>/../share/svc/sql, when it exists: an
//      installed program (/usr/bin/svc-admin -> /usr/share/svc/sql, also
//      under any other prefix or DESTDIR-relocated tree);
//   3. the source tree's sql/ (SVC_SQL_DIR, set by CMake for sql_dir.cpp),
//      so a build-tree program and the tests need no option.
// docs/deploy.md describes the same order.

#include <string>

namespace svc::admin {

std::string default_sql_dir();

}  // namespace svc::admin
