#include "auth/app_id.hpp"
#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/login_service.hpp"
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
    case LoginOutcome::kSecondFactor: {
      // A client that knows nothing of a second factor sees a failed login.
      http::JsonWriter w;
      w.open().kv("status", "Failed").kv("message", "Second factor required").kv("mfa_token", result.mfa_token);
      w.open_array("methods").s("totp").s("recovery_code");
      if (result.has_passkey) w.s("passkey");
      w.close_array().close();
      return http::Response::json(401, w.str());
    }
  }
  return session_reply(result.session, Profile::kWithRole);
}

}  // namespace svc::auth
