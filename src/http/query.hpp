#pragma once

#include <string_view>
#include <vector>

namespace svc::http {

// Every value of `name` in a query string ("a=1&b=2&a=3", without the '?'),
// in order, as sent: no percent-decoding, so a caller that expects digits or
// base64url sees an encoded byte as the wrong character it is. A bare
// "name" (no '=') is the value "". The views point into `query`.
std::vector<std::string_view> query_values(std::string_view query, std::string_view name);

}  // namespace svc::http
