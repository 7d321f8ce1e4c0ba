#pragma once

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::http {

// GET /health: 200 {"status":"Success"} when the database answers,
// 503 {"status":"Failed","message":"Database unavailable"} when not.
Response health(const Request& request, core::Context& ctx);

}  // namespace svc::http
