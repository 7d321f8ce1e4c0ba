#include "auth/handlers.hpp"
#include "auth/lookup/sealed_user.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"

namespace svc::auth {

http::Response user_email(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto token = fields.required_string("userId", 1024);
  fields.throw_if_errors();
  db::User user = sealed_user(*token, request, ctx, UserRead::kRecent);
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("email", user.email).kv("role", user.role).close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
