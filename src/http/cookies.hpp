#pragma once
// Cookies: what a request carries, and the Set-Cookie values svc sends
// (the OpenID Connect provider's, oidc/issuer.hpp, and the device cookie
// of sign-ins, auth/session/device.hpp).

#include <string>
#include <string_view>

#include "http/request.hpp"

namespace svc::http {

// The value of cookie `name` in the request's Cookie header; "" when absent.
std::string request_cookie(const Request& request, std::string_view name);

// "name=value; Path=/; HttpOnly; SameSite=Lax", then "; Max-Age=N" unless
// max_age < 0 (a session cookie; 0 clears it) and "; Secure" when `secure`.
std::string set_cookie(std::string_view name, std::string_view value, long long max_age, bool secure);

}  // namespace svc::http
