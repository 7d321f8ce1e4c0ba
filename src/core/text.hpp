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

}  // namespace svc::core
