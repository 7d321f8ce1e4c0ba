#pragma once
// The Users capability of site management (design "Site administrators and
// the site management API"): the users of the site's pool, for svc-admin
// (`user list|find|show|disable|enable`) and /admin/sites/{site}/users.

#include <optional>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/passkey_repo.hpp"
#include "db/session_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "manage/actor.hpp"
#include "manage/page.hpp"

namespace svc::manage {

// The auth table a request names (one of [auth] tables), or the first of
// them when it names none; 400 (field "table") for any other name.
db::TableName users_table(core::Context& ctx, const std::optional<std::string>& name);

// A page of the pool's users whose address begins with `prefix`, in
// address order. Any role.
Page<db::User> list_users(core::Context& ctx, const Actor& actor, const db::TableName& table, const std::string& prefix,
                          const std::string& cursor, int limit);

struct UserDetail {
  db::User user;
  bool totp = false;
  int recovery_codes_left = 0;
  std::vector<db::Passkey> passkeys;     // on this site
  std::vector<db::SessionRow> sessions;  // open ones, on any site of the pool
  long long last_sign_in = 0;            // the newest open session's sign-in; 0 = none open
};

// The user with this id in the site's pool; 404 "User not found" for an id
// that names none there (another pool's user is not found either). Any role.
db::User pool_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);
UserDetail show_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

// Disables (sign-in refused like a wrong password, every session ended) or
// enables the user. Role admin. Returns the user as it is now.
db::User set_user_active(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id,
                         bool active);

// Ends every open session of the user; returns how many. Role admin.
int end_user_sessions(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

}  // namespace svc::manage
