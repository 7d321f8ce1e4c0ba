#pragma once
// The two signed values svc puts into its mail (docs/decisions.md
// "Deliverability"), both HMAC-SHA256 under [keys] mail_key with a label of
// their own, so neither can stand in for the other:
//  - the VERP tag of the envelope sender, bounce+<log id>-<20 hex>@domain:
//    a bounce or complaint names the outbox row it is about, and a forged
//    or altered tag is refused;
//  - the one-click unsubscribe token (RFC 8058), naming a site and an
//    address.
// Pure; safe from any thread once sodium_init() has run.

#include <optional>
#include <string>
#include <string_view>

namespace svc::messaging {

// "local+<log_id>-<tag>@domain" for bounce_address "local@domain".
// REQUIRES: bounce_address has exactly one '@' and no '+'; key not empty.
std::string verp_address(std::string_view bounce_address, long long log_id, std::string_view key);

// What a scan for VERP addresses found in a text (an envelope recipient, a
// whole bounce message): the outbox row of the first address whose tag
// verifies, and whether any address of that shape failed to verify.
struct VerpScan {
  std::optional<long long> log_id;
  bool forged = false;
};
// Looks for "local+<digits>-<20 hex>@domain" of bounce_address anywhere in
// `text` (letters compared case-insensitively).
VerpScan find_verp_tag(std::string_view text, std::string_view bounce_address, std::string_view key);

// The token of the one-click unsubscribe URL: base64url("<site_id>:<address
// lower-cased>") "." base64url(first 16 bytes of its HMAC).
std::string unsubscribe_token(long long site_id, std::string_view address, std::string_view key);

struct UnsubscribeTarget {
  long long site_id = 0;
  std::string address;  // lower-case
};
// The site and address of a token unsubscribe_token made with `key`;
// nullopt for anything else (constant-time comparison of the MAC).
std::optional<UnsubscribeTarget> open_unsubscribe_token(std::string_view token, std::string_view key);

// `base` "?t=" token: the List-Unsubscribe URL of a mail to `address`.
std::string unsubscribe_link(std::string_view base, long long site_id, std::string_view address, std::string_view key);

}  // namespace svc::messaging
