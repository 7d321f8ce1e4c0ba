#include "auth/handlers.hpp"
#include "auth/lookup/sealed_user.hpp"
#include "auth/lookup/sms_code.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"

namespace svc::auth {
namespace {

// 400 {"status":"Failed","message":message,"attempts_left":left}
http::ApiError code_refused(const char* message, int attempts_left) {
  http::JsonWriter w;
  w.open().kv("status", "Failed").kv("message", message).kv("attempts_left", attempts_left).close();
  return http::ApiError(400, w.str());
}

// 429 {"status":"Failed","message":"Too many attempts","attempts_left":0,"retry_after":N}:
// the daily cap on wrong guesses, in this route's shape plus retry_after.
http::ApiError too_many_guesses(long long retry_after) {
  http::JsonWriter w;
  w.open()
      .kv("status", "Failed")
      .kv("message", "Too many attempts")
      .kv("attempts_left", 0)
      .kv("retry_after", retry_after)
      .close();
  return http::ApiError(w.str(), retry_after);
}

}  // namespace

http::Response user_sms_code(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto token = fields.required_string("userId", 1024);
  fields.throw_if_errors();
  SmsSendResult sent = send_sms_code(sealed_user(*token, request, ctx), request, ctx);
  switch (sent.outcome) {
    case SmsSendOutcome::kSent:
      break;
    case SmsSendOutcome::kNoMobile:
      throw http::ApiError::failed(400, "Mobile number missing");
    case SmsSendOutcome::kTooSoon:
      throw http::ApiError::too_many("Too many requests", sent.retry_after);
    case SmsSendOutcome::kGatewayFailed:
      throw http::ApiError::failed(500, http::kGenericError);
  }
  return http::Response::json(200, R"({"status":"Success","message":"SMS code sent successfully"})");
}

// Field errors on code and userId come together in one 400; a malformed code
// costs no attempt.
http::Response verify_sms_code(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto code = fields.required_string("code", 16);
  if (code && (code->size() != 6 || code->find_first_not_of("0123456789") != std::string::npos)) {
    fields.add("code", "code must be 6 digits");
  }
  auto token = fields.required_string("userId", 1024);
  fields.throw_if_errors();
  SmsCheckResult checked = check_sms_code(sealed_user(*token, request, ctx), *code, request, ctx);
  switch (checked.outcome) {
    case SmsCheckOutcome::kVerified:
      break;
    case SmsCheckOutcome::kWrongCode:
      throw code_refused("Invalid code", checked.attempts_left);
    case SmsCheckOutcome::kDead:
      throw code_refused("Code expired or invalid", 0);
    case SmsCheckOutcome::kTooMany:
      throw too_many_guesses(checked.retry_after);
  }
  return http::Response::json(200, R"({"status":"Success","message":"SMS code verified"})");
}

}  // namespace svc::auth
