#pragma once
// The Admins capability: who may run a site (svc_site_admins). The operator
// grants with `svc-admin site admin add|list|remove`; a site's owner through
// /admin/sites/{site}/admins.

#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/site_admin_repo.hpp"
#include "db/table_name.hpp"
#include "manage/actor.hpp"

namespace svc::manage {

// The site's administrators, owners first. Any role.
std::vector<db::SiteAdmin> list_admins(core::Context& ctx, const Actor& actor, const db::TableName& table);

// Grants `role` to the user of the site's pool with this address (or
// changes their role). Role owner. 404 "User not found" when the pool has
// no such user; 409 when the change would leave the site without an owner.
db::SiteAdmin add_admin(core::Context& ctx, const Actor& actor, const db::TableName& table, const std::string& email,
                        Role role);

// Removes the grant of this user. Role owner. 404 "Admin not found" when
// the user holds none; 409 for the site's last owner.
void remove_admin(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id);

// The session of an API request's token with its user's role on a site
// ("" = none), in one statement (the guard's, on every management request).
std::optional<db::SessionGrant> session_grant(core::Context& ctx, const std::string& session_id, long long site_id);

// The grant an API request's user holds on a site, if any.
std::optional<db::SiteAdmin> grant_of(core::Context& ctx, long long site_id, const std::string& table,
                                      long long user_id);

}  // namespace svc::manage
