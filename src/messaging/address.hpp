#pragma once
// Addresses as the mail path reads them: lists (template BCC, site CC/BCC,
// request recipients) and one mailbox ("Name <addr>", the From of an outbox
// row). Pure; no I/O.

#include <string>
#include <string_view>
#include <vector>

namespace svc::messaging {

// Splits "a@x, b@y; c@z" on ',' and ';', trims blanks (space, tab, CR, LF)
// and drops empty entries. Does not validate (http::is_valid_email does).
std::vector<std::string> split_addresses(std::string_view list);

struct Mailbox {
  std::string name;     // display name, "" when none
  std::string address;  // bare address (not validated here)
};

// "Name <addr>", "\"Last, First\" <addr>", "<addr>" or a bare "addr".
// Blanks are trimmed, a quoted name is unquoted, controls are removed.
Mailbox parse_mailbox(std::string_view text);

}  // namespace svc::messaging
