#include "auth/auth_common.hpp"
#include "auth/email/code.hpp"
#include "auth/email/verification.hpp"
#include "auth/handlers.hpp"
#include "auth/mfa/replies.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"

// The e-mail identity endpoints (issue 26): sign-in codes and verified
// addresses.
namespace svc::auth {
namespace {

// 200 {"status":"Success","message":message + email}: the same for every
// address, registered or not.
http::Response sent_reply(const std::string& message, const std::string& email) {
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("message", message + email).close();
  return http::Response::json(200, w.str());
}

// The body of a request that names an account by its address: email, appID
// and the optional auth table. Throws 400 Validation error on any of them.
EmailCodeRequest address_fields(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto app_id = fields.required_id("appID");
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();
  return {*email, *app_id, *table};
}

}  // namespace

http::Response email_code(const http::Request& request, core::Context& ctx) {
  const EmailCodeRequest ask = address_fields(request, ctx);
  send_email_code(ask, request, ctx);
  return sent_reply("A sign-in code has been sent to ", ask.email);
}

// A malformed code costs no try. Every refusal has one reply, so a wrong
// code, a spent one and an unknown address look alike.
http::Response email_code_verify(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto app_id = fields.required_id("appID");
  auto code = fields.required_string("code", 16);
  if (code && (code->size() != 6 || code->find_first_not_of("0123456789") != std::string::npos)) {
    fields.add("code", "code must be 6 digits");
  }
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();
  EmailCodeResult result = sign_in_with_email_code({*email, *app_id, *table}, *code, request, ctx);
  switch (result.outcome) {
    case EmailCodeOutcome::kOk:
      break;
    case EmailCodeOutcome::kSecondFactor:
      return second_factor_reply(result.mfa_token, result.has_passkey);
    case EmailCodeOutcome::kRefused:
      throw http::ApiError::failed(401, "Invalid or expired code");
  }
  return session_reply(result.session, Profile::kWithRole);
}

http::Response verify_email(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto token = fields.required_string("token", 8192);
  fields.throw_if_errors();
  verify_email_token(ctx, request, *token);
  return http::Response::json(200, R"({"status":"Success","message":"Email verified"})");
}

http::Response verify_email_resend(const http::Request& request, core::Context& ctx) {
  const EmailCodeRequest ask = address_fields(request, ctx);
  resend_verification(ctx, request, ask.email, ask.app_id, ask.table);
  return sent_reply("A verification e-mail has been sent to ", ask.email);
}

}  // namespace svc::auth
