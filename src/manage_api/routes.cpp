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
      {"GET", "/admin/sites/*/admins", &admins_list, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/admins", &admin_add, nullptr, kAuthBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/admins/*", &admin_remove, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/audit", &audit_list, nullptr, 0, kNoFlags},
      // Mail (mail_api.cpp)
      {"GET", "/admin/sites/*/mail", &mail_list, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/mail/*", &mail_show, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/mail/*/resend", &mail_resend, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/suppressions", &suppressions_list, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/suppressions", &suppression_add, nullptr, kAuthBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/suppressions", &suppression_remove, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/bounce-guard", &bounce_guard_show, nullptr, 0, kNoFlags},
  };
  return kRoutes;
}

}  // namespace svc::manage_api
