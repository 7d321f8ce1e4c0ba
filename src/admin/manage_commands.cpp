#include "admin/manage_commands.hpp"

#include <cstdio>

#include "admin/listing.hpp"
#include "admin/manage_env.hpp"
#include "auth/session/device.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "manage/admins.hpp"
#include "manage/audit.hpp"
#include "manage/users.hpp"

namespace svc::admin {
namespace {

std::string when(long long t) { return readable_time(t); }

manage::Role role_option(const Args& args) {
  auto role = manage::parse_role(args.required("role"));
  if (!role) throw UsageError("--role must be owner, admin or viewer");
  return *role;
}

int print_users(const manage::Page<db::User>& page) {
  print_listing(
      page.rows, "no users", "id        active  verified  e-mail                          name", [](const db::User& u) {
        std::printf("%-8lld  %-6s  %-8s  %-30s  %s %s\n", u.id, u.active ? "yes" : "no",
                    u.email_verified ? "yes" : "no", u.email.c_str(), u.first_name.c_str(), u.last_name.c_str());
      });
  print_next(page.next_cursor);
  return 0;
}

long long named_user_id(ManageEnv& m, const Args& args) {
  if (auto id = args.get("id")) {
    auto parsed = core::parse_id(*id);
    if (!parsed) throw UsageError("--id must be a user id");
    return *parsed;
  }
  auto user = db::UserRepo(m.ctx.db, m.table, m.actor.pool_id).find_by_email(args.required("email"));
  if (!user)
    throw std::runtime_error("no user with e-mail " + *args.get("email") + " on site " +
                             std::to_string(m.actor.site_id));
  return user->id;
}

}  // namespace

int cmd_site_admin_add(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "email", "role", "table"});
  ManageEnv m(config_path, args);
  const manage::Role role = role_option(args);
  auto granted = manage::add_admin(m.ctx, m.actor, m.table, args.required("email"), role);
  std::printf("%s is %s of site %lld (user %lld)\n", granted.email.c_str(), granted.role.c_str(), m.actor.site_id,
              granted.user_id);
  return 0;
}

int cmd_site_admin_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "table"});
  ManageEnv m(config_path, args);
  return print_listing(manage::list_admins(m.ctx, m.actor, m.table), "no site admins",
                       "user      role    granted               e-mail", [](const db::SiteAdmin& a) {
                         std::printf("%-8lld  %-6s  %s  %s\n", a.user_id, a.role.c_str(), when(a.granted_at).c_str(),
                                     a.email.c_str());
                       });
}

int cmd_site_admin_remove(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "email", "table", "id"});
  ManageEnv m(config_path, args);
  const long long id = named_user_id(m, args);
  manage::remove_admin(m.ctx, m.actor, m.table, id);
  std::printf("user %lld is no longer an admin of site %lld\n", id, m.actor.site_id);
  return 0;
}

int cmd_user_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "prefix", "limit", "cursor", "table"});
  ManageEnv m(config_path, args);
  const int limit = manage::page_limit(args.get("limit") ? std::optional(args.integer("limit", 0)) : std::nullopt);
  return print_users(manage::list_users(m.ctx, m.actor, m.table, args.get("prefix").value_or(""),
                                        args.get("cursor").value_or(""), limit));
}

int cmd_user_find(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "table"});
  if (args.words().size() != 3) throw UsageError("user find takes one TEXT: the beginning of the addresses");
  ManageEnv m(config_path, args);
  return print_users(manage::list_users(m.ctx, m.actor, m.table, args.words()[2], "", manage::kDefaultPage));
}

int cmd_user_show(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "email", "id", "table"});
  ManageEnv m(config_path, args);
  const manage::UserDetail d = manage::show_user(m.ctx, m.actor, m.table, named_user_id(m, args));
  std::printf("id:              %lld\ne-mail:          %s\nname:            %s %s\nrole:            %s\n", d.user.id,
              d.user.email.c_str(), d.user.first_name.c_str(), d.user.last_name.c_str(), d.user.role.c_str());
  std::printf("active:          %s\nverified:        %s\nsecond factor:   %s\nlast sign-in:    %s\n",
              d.user.active ? "yes" : "no (disabled)", d.user.email_verified ? "yes" : "no",
              d.totp ? ("TOTP, " + std::to_string(d.recovery_codes_left) + " recovery codes left").c_str() : "none",
              when(d.last_sign_in).c_str());
  std::printf("passkeys:        %zu\n", d.passkeys.size());
  for (const auto& k : d.passkeys) {
    std::printf("  %lld  %s  added %s, last used %s\n", k.id, k.name.c_str(), when(k.created_at).c_str(),
                when(k.last_used_at).c_str());
  }
  std::printf("open sessions:   %zu\n", d.sessions.size());
  for (const auto& s : d.sessions) {
    std::printf("  %s  site %lld  %s  signed in %s, last seen %s\n", s.id.c_str(), s.site_id,
                auth::device_name(s.user_agent).c_str(), when(s.auth_time).c_str(), when(s.last_seen_at).c_str());
  }
  return 0;
}

namespace {

int set_active(const Args& args, const std::string& config_path, bool active) {
  args.allow_only({"site", "email", "id", "table"});
  ManageEnv m(config_path, args);
  const db::User user = manage::set_user_active(m.ctx, m.actor, m.table, named_user_id(m, args), active);
  std::printf("%s %s\n", user.email.c_str(), active ? "enabled" : "disabled; their sessions ended");
  return 0;
}

}  // namespace

int cmd_user_disable(const Args& args, const std::string& config_path) { return set_active(args, config_path, false); }
int cmd_user_enable(const Args& args, const std::string& config_path) { return set_active(args, config_path, true); }

int cmd_audit_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "limit", "cursor"});
  ManageEnv m(config_path, args);
  const int limit = manage::page_limit(args.get("limit") ? std::optional(args.integer("limit", 0)) : std::nullopt);
  auto page = manage::audit_page(m.ctx, m.actor, args.get("cursor").value_or(""), limit);
  print_listing(page.rows, "no audit entries", "when                  actor     action                target  detail",
                [](const db::AdminAuditRow& e) {
                  std::printf("%s  %-8s  %-20s  %s  %s\n", when(e.created_at).c_str(), e.actor.c_str(),
                              e.action.c_str(), e.target.c_str(), e.detail.c_str());
                });
  print_next(page.next_cursor);
  return 0;
}

}  // namespace svc::admin
