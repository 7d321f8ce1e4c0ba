#include "manage_api/handlers.hpp"
#include "manage_api/handlers_list.hpp"

namespace svc::manage_api {

using http::kAuthBodyLimit;
using http::kJsonBody;
using http::kNoFlags;
using http::Route;

// '*' is a site or row id, '?' a name (http::Route). Reads are GET, creates
// POST, changes PATCH, removals DELETE; every row is in docs/openapi.yaml.
std::span<const Route> routes() {
  static const Route kRoutes[] = {
      {"GET", "/admin/sites/*", &site_show, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/users", &users_list, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/users/*", &user_show, nullptr, 0, kNoFlags},
      {"PATCH", "/admin/sites/*/users/*", &user_update, nullptr, kAuthBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/users/*/sessions", &user_sessions_end, nullptr, 0, kNoFlags},
      // Users: create (an invitation), delete, second factor, reset and verification mail.
      {"POST", "/admin/sites/*/users", &user_create, nullptr, kAuthBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/users/*", &user_delete, nullptr, 0, kNoFlags},
      {"DELETE", "/admin/sites/*/users/*/second-factor", &user_second_factor_reset, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/users/*/password-reset", &user_password_reset, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/users/*/verification-mail", &user_verification_resend, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/admins", &admins_list, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/admins", &admin_add, nullptr, kAuthBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/admins/*", &admin_remove, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/audit", &audit_list, nullptr, 0, kNoFlags},
  };
  return kRoutes;
}

}  // namespace svc::manage_api
