// What svc-admin mail ingest reads from anyone who can send mail to the
// bounce domain: parse_bounce either answers or throws BounceParseError
// (never another exception, never a crash), a DSN's recipients are
// lower-case and non-empty, and find_verp_tag only ever reports a row whose
// genuine tag is in the input.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/text.hpp"
#include "messaging/bounce_report.hpp"
#include "messaging/mail_tags.hpp"

namespace {

const std::string kKey(32, 'k');
constexpr const char* kBounce = "bounce@b.example";

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
  const auto scan = svc::messaging::find_verp_tag(text, kBounce, kKey);
  if (scan.log_id) {
    const std::string genuine = svc::messaging::verp_address(kBounce, *scan.log_id, kKey);
    if (svc::core::ascii_lower(text).find(svc::core::ascii_lower(genuine)) == std::string::npos) std::abort();
  }
  return 0;
}
