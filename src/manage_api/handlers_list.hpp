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

}  // namespace svc::manage_api
