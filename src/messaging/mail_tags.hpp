#pragma once
// The two signed values svc puts into its mail (docs/decisions.md
// "Deliverability"), both HMAC-SHA256 under [keys] mail_key with a label of
// their own, so neither can stand in for the other:
//  - the VERP tag of the envelope sender, bounce+<log id>-<20 hex>@domain,
//    one per recipient (each gets a copy of its own, envelopes.hpp): the hex
//    is the MAC of the outbox row and the recipient, so a bounce or
//    complaint names the row and the one recipient it may be about, and a
//    forged or altered tag is refused. Tags made before issue 36 are the MAC
//    of the row alone (tagged_recipient says what they still name);
//  - the one-click unsubscribe token (RFC 8058), naming a site and an
//    address.
// Pure; safe from any thread once sodium_init() has run.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svc::messaging {

// "local+<log_id>-<tag>@domain" for bounce_address "local@domain", for the
// copy of row log_id sent to `recipient` (compared lower-cased).
// REQUIRES: bounce_address has exactly one '@' and no '+'; key not empty.
std::string verp_address(std::string_view bounce_address, long long log_id, std::string_view recipient,
                         std::string_view key);

// An address of the VERP shape found in a text (an envelope recipient, a
// whole bounce message), not verified yet: that needs the row's recipients.
struct VerpCandidate {
  long long log_id = 0;
  std::string tag;  // the 20 hex digits, lower-cased
};
// The first `limit` addresses "local+<digits>-<20 hex>@domain" of
// bounce_address in `text`, in order (letters compared case-insensitively).
std::vector<VerpCandidate> find_verp_candidates(std::string_view text, std::string_view bounce_address,
                                                std::size_t limit);

// Which of `recipients` (the envelope recipients of row candidate.log_id)
// the candidate's tag names, as given there: the one whose MAC it is; for a
// tag made before issue 36 (the MAC of the row alone), the row's only
// recipient. nullopt for a forged tag, and for a row-only tag of a row with
// several recipients (any of them could have sent it). Constant-time MAC
// comparisons.
std::optional<std::string> tagged_recipient(const VerpCandidate& candidate, const std::vector<std::string>& recipients,
                                            std::string_view key);

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
