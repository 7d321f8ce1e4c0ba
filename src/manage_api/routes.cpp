#include "manage_api/handlers.hpp"
#include "manage_api/handlers_list.hpp"

namespace svc::manage_api {

using http::kAuthBodyLimit;
using http::kJsonBody;
using http::kMessageBodyLimit;
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
      // Templates (templates_api.cpp): bodies carry a template's content.
      {"GET", "/admin/sites/*/templates", &templates_list, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/templates", &template_create, nullptr, kMessageBodyLimit, kJsonBody},
      {"GET", "/admin/sites/*/templates/*", &template_show, nullptr, 0, kNoFlags},
      {"PATCH", "/admin/sites/*/templates/*", &template_update, nullptr, kMessageBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/templates/*", &template_delete, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/templates/*/versions", &template_versions, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/templates/*/versions/*", &template_version_show, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/templates/*/rollback", &template_rollback, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/admin/sites/*/templates/*/preview", &template_preview, nullptr, kMessageBodyLimit, kJsonBody},
      {"POST", "/admin/sites/*/templates/*/test-send", &template_test_send, nullptr, kAuthBodyLimit, kJsonBody},
  };
  return kRoutes;
}

}  // namespace svc::manage_api
