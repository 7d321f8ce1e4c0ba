// The account self-service routes (docs/api.md "Account self-service"); the
// work is in account/self_service.cpp.
#include "auth/account/self_service.hpp"
#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/mfa/bearer.hpp"
#include "auth/password/policy.hpp"
#include "db/mfa_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"

namespace svc::auth {
namespace {

http::Response success(const char* message) {
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("message", message).close();
  return http::Response::json(200, w.str());
}

std::string token_field(const http::Request& request) {
  http::Fields fields(request.json);
  auto token = fields.required_string("token", 8192);
  fields.throw_if_errors();
  return *token;
}

}  // namespace

http::Response password_change(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto current = fields.required_string("current_password", kMaxPasswordBytes);
  auto password = password_field(fields, "password", false);
  auto confirm = fields.required_string("confirmPassword", kMaxPasswordBytes);
  fields.throw_if_errors();
  require_strong_password(*password, ctx, me.app_id, {me.user.email, me.user.first_name, me.user.last_name});
  if (*password != *confirm) throw http::ApiError::validation("confirmPassword", "Passwords do not match");
  require_own_password(request, ctx, me, *current, "password_change_failed");
  change_password(request, ctx, me, *password);
  return success("Password changed");
}

http::Response email_change(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto fresh = fields.required_string("new_email", 254);
  auto password = fields.required_string("password", kMaxPasswordBytes);
  if (fresh && !http::is_valid_email(*fresh)) fields.add("new_email", "new_email must be a valid e-mail address");
  fields.throw_if_errors();
  require_own_password(request, ctx, me, *password, "email_change_failed");
  request_email_change(request, ctx, me, *fresh);
  return success("A confirmation link has been sent to the new address");
}

http::Response email_change_confirm(const http::Request& request, core::Context& ctx) {
  confirm_email_change(request, ctx, token_field(request));
  return success("Email changed");
}

http::Response email_change_undo(const http::Request& request, core::Context& ctx) {
  undo_email_change(request, ctx, token_field(request));
  return success("Email restored");
}

http::Response account_delete(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto code = fields.optional_string("code", 64);
  auto password = fields.optional_string("password", kMaxPasswordBytes);
  if (!code && !password && fields.ok()) fields.add("password", "password or code is required");
  fields.throw_if_errors();
  if (code) {
    if (!db::MfaRepo(ctx.db).has_confirmed_factor(me.table.str(), me.user.id)) {
      throw http::ApiError::failed(400, "Invalid code");
    }
    require_own_code(request, ctx, me, *code, false);
  } else {
    require_own_password(request, ctx, me, *password, "account_delete_failed");
  }
  delete_account(request, ctx, me.table, me.user, me.app_id, "user");
  return success("Account deleted");
}

http::Response account_export(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  audit(ctx, request, "account_exported", me.table.str(), me.user.id, me.app_id);
  return http::Response::json(200, export_account(ctx, me.table, me.user));
}

}  // namespace svc::auth
