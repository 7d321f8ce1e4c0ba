#pragma once
// Foreign text (an SMTP relay's reply, a push service's response, an
// exception message) made fit for one log field or a stored error column.

#include <cstddef>
#include <string>
#include <string_view>

namespace svc::core {

// `s` without C0 controls and DEL (strip_controls), as valid UTF-8
// (utf8_clean: invalid bytes become U+FFFD) and, when longer than
// max_bytes, cut there (never inside a character) with "..." appended.
std::string printable(std::string_view s, std::size_t max_bytes = 200);

}  // namespace svc::core
