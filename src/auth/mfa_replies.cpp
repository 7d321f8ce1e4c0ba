#include "auth/mfa_replies.hpp"

#include "http/json.hpp"

namespace svc::auth {

http::Response recovery_codes_reply(const std::vector<std::string>& codes) {
  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("recovery_codes");
  for (const auto& code : codes) w.s(code);
  w.close_array().close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
