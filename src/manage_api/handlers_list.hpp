#pragma once
// Every management API handler, for the route table in routes.cpp. Each
// capability's handlers live in its own file (users_api.cpp, ...).

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::manage_api {

// admins_api.cpp
http::Response site_show(const http::Request& request, core::Context& ctx);
http::Response admins_list(const http::Request& request, core::Context& ctx);
http::Response admin_add(const http::Request& request, core::Context& ctx);
http::Response admin_remove(const http::Request& request, core::Context& ctx);
http::Response audit_list(const http::Request& request, core::Context& ctx);

// users_api.cpp
http::Response users_list(const http::Request& request, core::Context& ctx);
http::Response user_show(const http::Request& request, core::Context& ctx);
http::Response user_update(const http::Request& request, core::Context& ctx);
http::Response user_sessions_end(const http::Request& request, core::Context& ctx);
http::Response user_create(const http::Request& request, core::Context& ctx);
http::Response user_delete(const http::Request& request, core::Context& ctx);
http::Response user_second_factor_reset(const http::Request& request, core::Context& ctx);
http::Response user_password_reset(const http::Request& request, core::Context& ctx);
http::Response user_verification_resend(const http::Request& request, core::Context& ctx);

// settings_api.cpp (Settings and the site key)
http::Response settings_show(const http::Request& request, core::Context& ctx);
http::Response settings_update(const http::Request& request, core::Context& ctx);
http::Response site_key_rotate(const http::Request& request, core::Context& ctx);

// webhooks_api.cpp
http::Response webhooks_list(const http::Request& request, core::Context& ctx);
http::Response webhook_add(const http::Request& request, core::Context& ctx);
http::Response webhook_update(const http::Request& request, core::Context& ctx);
http::Response webhook_rotate_secret(const http::Request& request, core::Context& ctx);
http::Response webhook_delete(const http::Request& request, core::Context& ctx);
http::Response webhook_deliveries(const http::Request& request, core::Context& ctx);

// oauth_clients_api.cpp
http::Response oauth_clients_list(const http::Request& request, core::Context& ctx);
http::Response oauth_client_show(const http::Request& request, core::Context& ctx);
http::Response oauth_client_create(const http::Request& request, core::Context& ctx);
http::Response oauth_client_rotate_secret(const http::Request& request, core::Context& ctx);
http::Response oauth_client_delete(const http::Request& request, core::Context& ctx);

// templates_api.cpp
http::Response templates_list(const http::Request& request, core::Context& ctx);
http::Response template_create(const http::Request& request, core::Context& ctx);
http::Response template_show(const http::Request& request, core::Context& ctx);
http::Response template_update(const http::Request& request, core::Context& ctx);
http::Response template_delete(const http::Request& request, core::Context& ctx);
http::Response template_versions(const http::Request& request, core::Context& ctx);
http::Response template_version_show(const http::Request& request, core::Context& ctx);
http::Response template_rollback(const http::Request& request, core::Context& ctx);
http::Response template_preview(const http::Request& request, core::Context& ctx);
http::Response template_test_send(const http::Request& request, core::Context& ctx);

// mail_api.cpp
http::Response mail_list(const http::Request& request, core::Context& ctx);
http::Response mail_show(const http::Request& request, core::Context& ctx);
http::Response mail_resend(const http::Request& request, core::Context& ctx);
http::Response suppressions_list(const http::Request& request, core::Context& ctx);
http::Response suppression_add(const http::Request& request, core::Context& ctx);
http::Response suppression_remove(const http::Request& request, core::Context& ctx);
http::Response bounce_guard_show(const http::Request& request, core::Context& ctx);

// providers_api.cpp
http::Response providers_list(const http::Request& request, core::Context& ctx);
http::Response provider_add(const http::Request& request, core::Context& ctx);
http::Response provider_remove(const http::Request& request, core::Context& ctx);

}  // namespace svc::manage_api
