#include "manage/actor.hpp"

#include "http/api_error.hpp"

namespace svc::manage {

std::optional<Role> parse_role(std::string_view name) {
  if (name == "owner") return Role::kOwner;
  if (name == "admin") return Role::kAdmin;
  if (name == "viewer") return Role::kViewer;
  return std::nullopt;
}

const char* role_name(Role role) {
  switch (role) {
    case Role::kOwner:
      return "owner";
    case Role::kAdmin:
      return "admin";
    case Role::kViewer:
      return "viewer";
  }
  return "viewer";
}

Actor Actor::operator_on(long long site_id, long long pool_id) {
  Actor a;
  a.site_id = site_id;
  a.pool_id = pool_id;
  a.role = Role::kOwner;
  return a;
}

std::string Actor::audit_name() const { return is_operator() ? "operator" : std::to_string(user_id); }

void require_role(const Actor& actor, Role needed) {
  if (static_cast<int>(actor.role) < static_cast<int>(needed)) throw http::ApiError::failed(403, "Forbidden");
}

}  // namespace svc::manage
