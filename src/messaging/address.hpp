#pragma once
// Address lists as the mail path reads them (template BCC, site CC/BCC,
// request recipients). Pure; no I/O.

#include <string>
#include <string_view>
#include <vector>

namespace svc::messaging {

// Splits "a@x, b@y; c@z" on ',' and ';', trims blanks (space, tab, CR, LF)
// and drops empty entries. Does not validate (http::is_valid_email does).
std::vector<std::string> split_addresses(std::string_view list);

}  // namespace svc::messaging
