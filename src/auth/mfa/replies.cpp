#include "auth/mfa/replies.hpp"

#include "http/json.hpp"

namespace svc::auth {

http::Response recovery_codes_reply(const std::vector<std::string>& codes) {
  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("recovery_codes");
  for (const auto& code : codes) w.s(code);
  w.close_array().close();
  return http::Response::json(200, w.str());
}

http::Response second_factor_reply(const std::string& mfa_token, bool has_passkey) {
  http::JsonWriter w;
  w.open().kv("status", "Failed").kv("message", "Second factor required").kv("mfa_token", mfa_token);
  // A client that knows nothing of a second factor sees a failed login.
  w.open_array("methods").s("totp").s("recovery_code");
  if (has_passkey) w.s("passkey");
  w.close_array().close();
  return http::Response::json(401, w.str());
}

}  // namespace svc::auth
