#pragma once
// The site management API (docs/api.md "Site administration"): JSON under
// /admin/sites/{site}/..., one handler per route of routes().

#include <span>

#include "http/routes.hpp"

namespace svc::manage_api {

// The management API's rows of the route table (app::routes() appends them).
std::span<const http::Route> routes();

}  // namespace svc::manage_api
