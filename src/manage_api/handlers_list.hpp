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

}  // namespace svc::manage_api
