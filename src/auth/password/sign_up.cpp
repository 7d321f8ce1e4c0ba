#include "auth/app_id.hpp"
#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/password/policy.hpp"
#include "auth/password/sign_up_service.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "messaging/locale.hpp"

namespace svc::auth {
namespace {

std::optional<std::string> name_field(http::Fields& fields, const char* name) {
  auto value = fields.optional_string(name, 1024);
  if (value && utf8_length(*value) > kMaxNameChars) {
    fields.add(name, std::string(name) + " must be at most 50 characters");
    return std::nullopt;
  }
  // A name goes into mail headers, pages and logs: no NUL, line breaks or
  // other controls (issue 36).
  if (value && core::has_name_controls(*value)) {
    fields.add(name, std::string(name) + " must not contain control characters");
    return std::nullopt;
  }
  return value;
}

}  // namespace

// Only email, password, firstname, lastname and locale reach the row: role, id and
// any other field in the body are ignored (no mass assignment).
http::Response sign_up(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto password = password_field(fields, "password", false);
  auto first = name_field(fields, "firstname");
  auto last = name_field(fields, "lastname");
  auto app_id = optional_app_id(fields, ctx);
  auto table = signup_table(fields, ctx);
  auto locale = fields.optional_string("locale", 35);
  if (locale && !messaging::is_locale_shape(*locale)) {
    fields.add("locale", "locale must be a BCP 47 language tag such as de or de-AT");
  }
  fields.throw_if_errors();
  require_strong_password(*password, ctx, *app_id, {*email, first.value_or(""), last.value_or("")});

  auto session = register_user({*email, *password, first.value_or(""), last.value_or(""), *table, *app_id,
                                locale ? messaging::normalize_locale(*locale) : ""},
                               request, ctx);
  if (!session) throw http::ApiError::failed(409, "User with this email already exists");
  return session_reply(*session, Profile::kWithoutRole);
}

}  // namespace svc::auth
