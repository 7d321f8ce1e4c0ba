// What svc-admin mail ingest reads from anyone who can send mail to the
// bounce domain: parse_bounce either answers or throws BounceParseError
// (never another exception, never a crash), a DSN's recipients are
// lower-case and non-empty, and a tag found in the input names a recipient
// only when that recipient's genuine tag is in it.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/text.hpp"
#include "messaging/bounce_report.hpp"
#include "messaging/mail_tags.hpp"

namespace {

const std::string kKey(32, 'k');
constexpr const char* kBounce = "bounce@b.example";
constexpr const char* kRecipient = "ada@example.org";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto report = svc::messaging::parse_bounce(text);
    for (const auto& r : report.recipients) {
      if (r.address.empty() || r.address != svc::core::ascii_lower(r.address)) std::abort();
    }
  } catch (const svc::messaging::BounceParseError&) {
  }
  for (const auto& candidate : svc::messaging::find_verp_candidates(text, kBounce, 16)) {
    const auto recipient = svc::messaging::tagged_recipient(candidate, {kRecipient}, kKey);
    if (!recipient) continue;
    const std::string genuine = svc::messaging::verp_address(kBounce, candidate.log_id, *recipient, kKey);
    if (svc::core::ascii_lower(text).find(svc::core::ascii_lower(genuine)) == std::string::npos) std::abort();
  }
  return 0;
}
