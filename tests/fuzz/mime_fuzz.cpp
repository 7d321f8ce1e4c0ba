// The MIME builder. Input: "field: value" lines filling an OutgoingMail
// (from, from_name, to, cc, bcc, subject, message_id, date; to/cc/bcc may
// repeat), an empty line, then the HTML body (the text part is derived from
// it). Checks what messaging/mime.hpp promises for any mail: CRLF line
// endings only, the text ends with CRLF, no header line over 998 characters,
// no body line over 76, no Bcc header, and envelope recipients without
// controls, blanks or case-insensitive duplicates.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "core/text.hpp"
#include "messaging/mime.hpp"

namespace {

using svc::messaging::OutgoingMail;

void set_field(OutgoingMail& mail, std::string_view name, std::string value) {
  if (name == "from")
    mail.from = std::move(value);
  else if (name == "from_name")
    mail.from_name = std::move(value);
  else if (name == "to")
    mail.to.push_back(std::move(value));
  else if (name == "cc")
    mail.cc.push_back(std::move(value));
  else if (name == "bcc")
    mail.bcc.push_back(std::move(value));
  else if (name == "subject")
    mail.subject = std::move(value);
  else if (name == "message_id")
    mail.message_id = std::move(value);
  else if (name == "date")
    mail.date_unix = svc::core::parse_id(value).value_or(0);
  else if (name == "text")
    mail.text = std::move(value);
}

OutgoingMail parse_mail(std::string_view rest) {
  OutgoingMail mail;
  while (!rest.empty()) {
    const size_t lf = rest.find('\n');
    const std::string_view line = rest.substr(0, lf);
    rest = lf == std::string_view::npos ? std::string_view() : rest.substr(lf + 1);
    if (line.empty()) break;
    const size_t colon = line.find(':');
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    set_field(mail, line.substr(0, colon), std::string(value));
  }
  mail.html = std::string(rest);
  return mail;
}

void check_message(const std::string& msg) {
  if (msg.size() < 2 || msg.compare(msg.size() - 2, 2, "\r\n") != 0) std::abort();
  bool in_headers = true;
  for (size_t start = 0; start < msg.size();) {
    const size_t end = msg.find("\r\n", start);
    if (end == std::string::npos) std::abort();
    const std::string_view line(msg.data() + start, end - start);
    if (line.find_first_of("\r\n") != std::string_view::npos) std::abort();  // bare CR or LF
    if (in_headers) {
      if (line.size() > 998) std::abort();
      if (svc::core::ascii_lower(line.substr(0, 4)) == "bcc:") std::abort();
      if (line.empty()) in_headers = false;
    } else if (line.size() > 76 && !line.starts_with("--")) {
      std::abort();
    }
    start = end + 2;
  }
}

void check_envelope(const OutgoingMail& mail) {
  std::set<std::string> seen;
  for (const std::string& rcpt : svc::messaging::envelope_recipients(mail)) {
    if (rcpt.empty() || rcpt != svc::core::strip_controls(rcpt)) std::abort();
    if (rcpt.front() == ' ' || rcpt.back() == ' ') std::abort();
    if (!seen.insert(svc::core::ascii_lower(rcpt)).second) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const OutgoingMail mail = parse_mail(std::string_view(reinterpret_cast<const char*>(data), size));
  check_message(svc::messaging::build_mime(mail));
  check_envelope(mail);
  return 0;
}
