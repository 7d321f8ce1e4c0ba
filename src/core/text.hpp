#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// True when `s` holds a byte strip_controls would remove (a C0 control or DEL).
bool has_controls(std::string_view s);

// True when `s` holds a C0 control, DEL, a C1 control (U+0080-U+009F, NEL
// among them) or a line or paragraph separator (U+2028, U+2029): what a
// person's name must not hold (issue 36), since each breaks a header or a
// line wherever the name is shown.
bool has_name_controls(std::string_view s);

// `s` with every C0 control and DEL replaced by '?' (length kept): a stored
// value shown on one line of operator output, where a tab or line break
// would break the table.
std::string mask_controls(std::string_view s);

// The body of a JSON string literal for `s` (no surrounding quotes): '"' and
// '\' escaped, C0 controls as \n \r \t or \u00XX; every other byte,
// DEL and UTF-8 included, as it is.
std::string json_escape(std::string_view s);

// True when `s` is well-formed UTF-8: no overlong forms, surrogates or code
// points past U+10FFFF (exactly what utf8_clean leaves unchanged).
bool is_valid_utf8(std::string_view s);

// ASCII lower case; bytes >= 0x80 are left as they are.
std::string ascii_lower(std::string_view s);
char ascii_lower(char c);

// The items joined by `separator` ("" for none).
std::string join(const std::vector<std::string>& items, std::string_view separator);

// Space, tab, CR, LF or form feed (HTML's and RFC 5322's blanks).
bool is_blank(char c);

// `s` without leading and trailing blanks (is_blank); a view into `s`.
std::string_view trim_blanks(std::string_view s);

// The lower-cased host of an absolute http:// or https:// URL; "" when `url`
// is not one, has an empty authority, or carries userinfo ("user@host").
// A port is dropped; an IPv6 literal keeps its brackets ("[::1]").
std::string url_host(std::string_view url);

// `s` for a URL component: RFC 3986 unreserved characters stay, every other
// byte becomes %XX (upper-case hex).
std::string percent_encode(std::string_view s);

// The words of a space-separated list (columns such as passkey transports,
// relying-party origins, a session's amr), empty words skipped.
std::vector<std::string_view> split_words(std::string_view list);

}  // namespace svc::core
