#include "auth/handlers.hpp"
#include "auth/mfa/login.hpp"
#include "auth/mfa/totp_factor.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"

namespace svc::auth {

http::Response mfa_verify(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto token = fields.required_string("mfa_token", 128);
  auto code = fields.optional_string("code", 64);
  auto recovery = fields.optional_string("recovery_code", 64);
  if (fields.ok() && code.has_value() == recovery.has_value()) {
    fields.add("code", "give either code or recovery_code");
  } else if (code && !is_totp_code(*code)) {
    fields.add("code", "code must be 6 digits");
  }
  fields.throw_if_errors();

  MfaResult result = verify_second_factor({*token, code ? *code : *recovery, !code}, request, ctx);
  switch (result.outcome) {
    case MfaOutcome::kOk:
      break;
    case MfaOutcome::kExpired:
      throw http::ApiError::failed(401, "Second factor expired, log in again");
    case MfaOutcome::kWrong:
      throw http::ApiError::failed(401, "Invalid code");
    case MfaOutcome::kThrottled:
      throw http::ApiError::too_many("Too many attempts", result.retry_after);
  }
  return session_reply(result.session, Profile::kWithRole);
}

}  // namespace svc::auth
