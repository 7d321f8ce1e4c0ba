#include "auth/handlers.hpp"

namespace svc::auth {

http::Response sign_out(const http::Request&, core::Context&) {
  // Tokens are stateless: nothing to revoke server-side; the client drops them.
  return http::Response::json(200, R"({"status":"Success","message":"Signed out successfully"})");
}

}  // namespace svc::auth
