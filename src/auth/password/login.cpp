#include "auth/app_id.hpp"
#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/mfa/replies.hpp"
#include "auth/password/login_service.hpp"
#include "auth/password/policy.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"

namespace svc::auth {

http::Response login(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto password = password_field(fields, "password", true);
  auto app_id = optional_app_id(fields, ctx);
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();

  LoginResult result = log_in({*email, *password, *table, *app_id}, request, ctx);
  switch (result.outcome) {
    case LoginOutcome::kOk:
      break;
    case LoginOutcome::kThrottled:
      throw http::ApiError::too_many("Too many attempts", result.retry_after);
    case LoginOutcome::kInvalidCredentials:
      throw http::ApiError::failed(401, "Invalid credentials");
    case LoginOutcome::kSecondFactor:
      return second_factor_reply(result.mfa_token, result.has_passkey);
    case LoginOutcome::kEmailNotVerified:
      throw http::ApiError::failed(403, "Email not verified");
  }
  // Signs in all the same; the site may ask for a new password (issue 41).
  return session_reply(result.session, Profile::kWithRole, is_breached(*password, ctx));
}

}  // namespace svc::auth
