#pragma once
// Who makes a change through a site-management service (design "Site
// administrators and the site management API"): a site administrator
// through the management API, or the operator through svc-admin.

#include <optional>
#include <string>
#include <string_view>

namespace svc::manage {

// Ordered: each role may do what the ones below it may.
enum class Role { kViewer = 0, kAdmin = 1, kOwner = 2 };

// "owner" | "admin" | "viewer"; nullopt for anything else.
std::optional<Role> parse_role(std::string_view name);
const char* role_name(Role role);

struct Actor {
  long long site_id = 0;
  long long pool_id = 1;  // the site's user pool: the users it may manage
  Role role = Role::kOwner;
  long long user_id = 0;   // 0 = the operator (svc-admin)
  std::string auth_table;  // the admin's table; "" for the operator
  std::string email;       // the admin's address (a test send goes there); "" for the operator
  std::string ip;
  std::string request_id;

  // The operator acting on a site (svc-admin): every role's rights.
  static Actor operator_on(long long site_id, long long pool_id);
  bool is_operator() const { return user_id == 0; }
  // svc_admin_audit's actor: the user id, or "operator".
  std::string audit_name() const;
};

// Throws 403 Forbidden unless the actor's role is at least `needed`.
void require_role(const Actor& actor, Role needed);

}  // namespace svc::manage
