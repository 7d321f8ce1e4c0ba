#pragma once
// The user-pool migration of an auth table other than svc_users (design
// "User pools"): sql/034 alters svc_users, and `svc-admin migrate` brings
// every other table of [auth] tables ("same columns as svc_users") to the
// same shape, since a migration file cannot know their names.

#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/table_name.hpp"

namespace svc::db {

// The statements that give `table` a pool_id column (default 1, INSTANT) and
// the unique key (pool_id, user_email) in place of a unique key on the
// address alone (one INPLACE, LOCK=NONE statement: no moment has neither);
// empty once the table has both, or when it does not exist. Read from
// information_schema, so running it again is a no-op.
std::vector<std::string> user_pool_ddl(Database& db, const TableName& table);

}  // namespace svc::db
