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
      // Settings and the site key (settings_api.cpp)
      {"GET", "/admin/sites/*/settings", &settings_show, nullptr, 0, kNoFlags},
      {"PATCH", "/admin/sites/*/settings", &settings_update, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/admin/sites/*/key", &site_key_rotate, nullptr, 0, kNoFlags},
      // Webhooks (webhooks_api.cpp)
      {"GET", "/admin/sites/*/webhooks", &webhooks_list, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/webhooks", &webhook_add, nullptr, kAuthBodyLimit, kJsonBody},
      {"GET", "/admin/sites/*/webhooks/deliveries", &webhook_deliveries, nullptr, 0, kNoFlags},
      {"PATCH", "/admin/sites/*/webhooks/*", &webhook_update, nullptr, kAuthBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/webhooks/*", &webhook_delete, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/webhooks/*/secret", &webhook_rotate_secret, nullptr, 0, kNoFlags},
      // OAuth clients (oauth_clients_api.cpp)
      {"GET", "/admin/sites/*/oauth-clients", &oauth_clients_list, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/oauth-clients", &oauth_client_create, nullptr, kAuthBodyLimit, kJsonBody},
      {"GET", "/admin/sites/*/oauth-clients/?", &oauth_client_show, nullptr, 0, kNoFlags},
      {"DELETE", "/admin/sites/*/oauth-clients/?", &oauth_client_delete, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/oauth-clients/?/secret", &oauth_client_rotate_secret, nullptr, 0, kNoFlags},
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
      // Mail (mail_api.cpp)
      {"GET", "/admin/sites/*/mail", &mail_list, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/mail/*", &mail_show, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/mail/*/resend", &mail_resend, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/suppressions", &suppressions_list, nullptr, 0, kNoFlags},
      {"POST", "/admin/sites/*/suppressions", &suppression_add, nullptr, kAuthBodyLimit, kJsonBody},
      {"DELETE", "/admin/sites/*/suppressions", &suppression_remove, nullptr, 0, kNoFlags},
      {"GET", "/admin/sites/*/bounce-guard", &bounce_guard_show, nullptr, 0, kNoFlags},
      // Upstream providers (providers_api.cpp); adding one runs the issuer's
      // discovery, an outside party: the outbound pool serves it.
      {"GET", "/admin/sites/*/providers", &providers_list, nullptr, 0, http::kOutbound},
      {"POST", "/admin/sites/*/providers", &provider_add, nullptr, kAuthBodyLimit, kJsonBody | http::kOutbound},
      {"DELETE", "/admin/sites/*/providers/?", &provider_remove, nullptr, 0, kNoFlags},
  };
  return kRoutes;
}

}  // namespace svc::manage_api
