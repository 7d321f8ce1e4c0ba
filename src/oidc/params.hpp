#pragma once
// OAuth 2.0 parameters as they arrive: a query string or an
// application/x-www-form-urlencoded body (RFC 6749 appendix B), and the
// encoding of the parameters svc sends back in a redirect.

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace svc::oidc {

// The parameters of a query string or form body, percent-decoded ('+' is a
// space). RFC 6749 3.1: a parameter sent more than once is an error, named
// in `repeated`; so is one that does not decode (a bad %-escape, a NUL or
// invalid UTF-8), named in `malformed`. Parameters without a value are
// treated as omitted (RFC 6749 3.1).
struct Params {
  std::map<std::string, std::string> values;
  std::string repeated;   // "" = none
  std::string malformed;  // "" = none

  // The value, or nullopt when absent.
  std::optional<std::string> get(const std::string& name) const;
  std::string value(const std::string& name) const { return get(name).value_or(""); }
};

Params parse_params(std::string_view encoded);

// The percent-decoding of form encoding; nullopt for a bad escape, a NUL
// or bytes that are not UTF-8.
std::optional<std::string> form_decode(std::string_view text);

// `uri` with `name=value` pairs appended to its query ('?' or '&').
std::string append_query(const std::string& uri, const std::map<std::string, std::string>& params);

}  // namespace svc::oidc
