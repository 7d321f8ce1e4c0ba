#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace svc::core {

// `s` as valid UTF-8 of at most max_bytes: invalid sequences (and
// surrogates, overlongs) become U+FFFD; a cut never splits a character.
// For values that come from headers and go into the database or logs.
std::string utf8_clean(std::string_view s, size_t max_bytes = std::string::npos);

// A decimal id with only digits ("42"), no sign, no spaces, no trailing text.
std::optional<long long> parse_id(std::string_view s);

// Removes CR, LF, NUL and every other C0 control and DEL (bytes >= 0x80 are
// kept). For addresses, header values and any other text bound for a header,
// an SMTP command or a log field.
std::string strip_controls(std::string_view s);

// ASCII lower case; bytes >= 0x80 are left as they are.
std::string ascii_lower(std::string_view s);

// The lower-cased host of an absolute http:// or https:// URL; "" when `url`
// is not one, has an empty authority, or carries userinfo ("user@host").
// A port is dropped; an IPv6 literal keeps its brackets ("[::1]").
std::string url_host(std::string_view url);

}  // namespace svc::core
