#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/password/policy.hpp"
#include "auth/password/reset_service.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"

namespace svc::auth {

// The reply is the same whether or not the e-mail is registered in the
// table (`authTable`, default the first of [auth] tables).
http::Response request_pass(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto app_id = fields.required_id("appID");
  auto url = fields.optional_string("url", 2048);
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();
  request_password_reset(ctx, request, *email, *app_id, *table, url);

  http::JsonWriter w;
  w.open()
      .kv("status", "Success")
      .kv("message", "An e-mail with reset instructions has been sent to " + *email)
      .close();
  return http::Response::json(200, w.str());
}

http::Response reset_pass(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto password = password_field(fields, "password", false);
  auto confirm = fields.required_string("confirmPassword", kMaxPasswordBytes);
  auto token = fields.required_string("reset_password_token", 8192);
  auto table = requested_auth_table(fields, ctx);  // absent: the reset token's own table
  fields.throw_if_errors();
  require_strong_password(*password, ctx, reset_token_site(ctx, *token), {});
  if (*password != *confirm) throw http::ApiError::validation("confirmPassword", "Passwords do not match");

  reset_password(ctx, request, *token, table, *password);
  return http::Response::json(200, R"({"status":"Success","message":"Password reset successfully"})");
}

}  // namespace svc::auth
