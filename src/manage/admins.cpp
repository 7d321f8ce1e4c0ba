#include "manage/admins.hpp"

#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "manage/audit.hpp"

namespace svc::manage {
namespace {

constexpr const char* kLastOwner = "The site's last owner cannot be removed or demoted";

}  // namespace

std::vector<db::SiteAdmin> list_admins(core::Context& ctx, const Actor& actor, const db::TableName& table) {
  return db::SiteAdminRepo(ctx.db).list(actor.site_id, table);
}

db::SiteAdmin add_admin(core::Context& ctx, const Actor& actor, const db::TableName& table, const std::string& email,
                        Role role) {
  require_role(actor, Role::kOwner);
  auto user = db::UserRepo(ctx.db, table, actor.pool_id).find_by_email(email);
  if (!user) throw http::ApiError::failed(404, "User not found");
  db::SiteAdminRepo repo(ctx.db);
  auto before = repo.find(actor.site_id, table.str(), user->id);
  if (before && before->role == "owner" && role != Role::kOwner && repo.count_owners(actor.site_id) <= 1) {
    throw http::ApiError::failed(409, kLastOwner);
  }
  repo.grant(actor.site_id, table.str(), user->id, role_name(role));
  audit(ctx, actor, before ? "admins.role_change" : "admins.add", "user " + std::to_string(user->id),
        before ? before->role + " -> " + role_name(role) : std::string("role ") + role_name(role));
  auto granted = repo.find(actor.site_id, table.str(), user->id);
  granted->email = user->email;
  return *granted;
}

void remove_admin(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  require_role(actor, Role::kOwner);
  db::SiteAdminRepo repo(ctx.db);
  auto grant = repo.find(actor.site_id, table.str(), user_id);
  if (!grant) throw http::ApiError::failed(404, "Admin not found");
  if (grant->role == "owner" && repo.count_owners(actor.site_id) <= 1) throw http::ApiError::failed(409, kLastOwner);
  repo.remove(actor.site_id, table.str(), user_id);
  audit(ctx, actor, "admins.remove", "user " + std::to_string(user_id), "was " + grant->role);
}

std::optional<db::SessionGrant> session_grant(core::Context& ctx, const std::string& session_id, long long site_id) {
  return db::SiteAdminRepo(ctx.db).session_grant(session_id, site_id);
}

std::optional<db::SiteAdmin> grant_of(core::Context& ctx, long long site_id, const std::string& table,
                                      long long user_id) {
  return db::SiteAdminRepo(ctx.db).find(site_id, table, user_id);
}

}  // namespace svc::manage
