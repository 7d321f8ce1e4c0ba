#include "messaging/mail_tags.hpp"

#include <cctype>

#include "core/text.hpp"
#include "crypto/encoding.hpp"

namespace svc::messaging {
namespace {

constexpr std::size_t kTagHex = 20;  // 80 bits: guessing one takes 2^79 tries on average
constexpr std::size_t kTokenMacBytes = 16;

// The label of a per-recipient tag differs from the row-only one, so no
// row-only tag can pass for a recipient's.
std::string verp_mac(long long log_id, std::string_view recipient, std::string_view key) {
  return crypto::hex_encode(crypto::hmac_sha256(key, "svc-verp-rcpt\x1f" + std::to_string(log_id) + "\x1f" +
                                                         core::ascii_lower(recipient)))
      .substr(0, kTagHex);
}

// The tag of every mail sent before issue 36.
std::string row_only_mac(long long log_id, std::string_view key) {
  return crypto::hex_encode(crypto::hmac_sha256(key, "svc-verp\x1f" + std::to_string(log_id))).substr(0, kTagHex);
}

std::string token_mac(std::string_view payload, std::string_view key) {
  return crypto::hmac_sha256(key, "svc-unsubscribe\x1f" + std::string(payload)).substr(0, kTokenMacBytes);
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// At text[pos]: "<digits>-<20 hex>@" + domain. The id and the tag, lower-cased.
std::optional<std::pair<long long, std::string>> tag_at(std::string_view text, std::size_t pos,
                                                        std::string_view domain) {
  std::size_t i = pos;
  long long id = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - pos < 18) {
    id = id * 10 + (text[i] - '0');
    ++i;
  }
  if (i == pos || i >= text.size() || text[i] != '-') return std::nullopt;
  const std::size_t hex = ++i;
  while (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i - hex != kTagHex || i >= text.size() || text[i] != '@') return std::nullopt;
  if (!iequal(text.substr(i + 1, domain.size()), domain)) return std::nullopt;
  return std::pair(id, core::ascii_lower(text.substr(hex, kTagHex)));
}

}  // namespace

std::string verp_address(std::string_view bounce_address, long long log_id, std::string_view recipient,
                         std::string_view key) {
  const auto at = bounce_address.find('@');
  return std::string(bounce_address.substr(0, at)) + "+" + std::to_string(log_id) + "-" +
         verp_mac(log_id, recipient, key) + std::string(bounce_address.substr(at));
}

std::vector<VerpCandidate> find_verp_candidates(std::string_view text, std::string_view bounce_address,
                                                std::size_t limit) {
  std::vector<VerpCandidate> found;
  const auto at = bounce_address.find('@');
  if (at == std::string_view::npos) return found;
  const std::string prefix = std::string(bounce_address.substr(0, at)) + "+";
  const std::string_view domain = bounce_address.substr(at + 1);
  const std::string lowered = core::ascii_lower(text);
  const std::string lowered_prefix = core::ascii_lower(prefix);
  for (std::size_t pos = lowered.find(lowered_prefix); pos != std::string::npos && found.size() < limit;
       pos = lowered.find(lowered_prefix, pos + 1)) {
    if (auto tag = tag_at(text, pos + prefix.size(), domain)) found.push_back({tag->first, std::move(tag->second)});
  }
  return found;
}

std::optional<std::string> tagged_recipient(const VerpCandidate& candidate, const std::vector<std::string>& recipients,
                                            std::string_view key) {
  if (key.empty()) return std::nullopt;
  for (const auto& r : recipients) {
    if (crypto::constant_time_equal(candidate.tag, verp_mac(candidate.log_id, r, key))) return r;
  }
  // Decision (docs/decisions.md, issue 36): a row-only tag of a row with one
  // recipient cannot be abused by a co-recipient, so it still counts.
  if (recipients.size() == 1 && crypto::constant_time_equal(candidate.tag, row_only_mac(candidate.log_id, key))) {
    return recipients.front();
  }
  return std::nullopt;
}

std::string unsubscribe_token(long long site_id, std::string_view address, std::string_view key) {
  const std::string payload = std::to_string(site_id) + ":" + core::ascii_lower(address);
  return crypto::base64url_encode(payload) + "." + crypto::base64url_encode(token_mac(payload, key));
}

std::optional<UnsubscribeTarget> open_unsubscribe_token(std::string_view token, std::string_view key) {
  if (key.empty() || token.size() > 1024) return std::nullopt;
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto payload = crypto::base64url_decode(token.substr(0, dot));
  const auto mac = crypto::base64url_decode(token.substr(dot + 1));
  if (!payload || !mac || !crypto::constant_time_equal(*mac, token_mac(*payload, key))) return std::nullopt;
  const auto colon = payload->find(':');
  if (colon == std::string::npos) return std::nullopt;
  const auto site = core::parse_id(payload->substr(0, colon));
  if (!site) return std::nullopt;
  return UnsubscribeTarget{*site, payload->substr(colon + 1)};
}

std::string unsubscribe_link(std::string_view base, long long site_id, std::string_view address, std::string_view key) {
  return std::string(base) + "?t=" + unsubscribe_token(site_id, address, key);
}

}  // namespace svc::messaging
