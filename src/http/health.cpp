#include "http/health.hpp"

#include "db/database.hpp"
#include "http/api_error.hpp"

namespace svc::http {

Response health(const Request&, core::Context& ctx) {
  if (!ctx.db.ping()) throw ApiError::failed(503, "Database unavailable");
  return Response::json(200, R"({"status":"Success"})");
}

}  // namespace svc::http
