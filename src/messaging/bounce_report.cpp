// Only what deciding needs is read: the top-level header, and for a report
// the machine-readable part (message/delivery-status or
// message/feedback-report). The human-readable part and the returned
// original are skipped; the VERP tag that names the outbox row is found by
// mail_tags' scan of the whole message, not here.
#include "messaging/bounce_report.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/MediaType.h>
#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/MultipartReader.h>

#include <istream>
#include <sstream>
#include <utility>

#include "core/text.hpp"

namespace svc::messaging {
namespace {

constexpr int kMaxHeaderFields = 1000;  // a relayed DSN carries many Received lines
constexpr int kMaxParts = 64;           // a report has three; a DSN of many recipients still one status part

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

// "rfc822; Ada@Example.org" -> "ada@example.org".
std::string address_field(const std::string& value) {
  const auto semi = value.find(';');
  std::string a = trimmed(semi == std::string::npos ? value : value.substr(semi + 1));
  if (a.size() >= 2 && a.front() == '<' && a.back() == '>') a = a.substr(1, a.size() - 2);
  return core::ascii_lower(a);
}

// The header-like blocks of a status part (RFC 3464 §2.1: the per-message
// block, then one block per recipient), each as lower-cased name -> value,
// continuation lines unfolded.
std::vector<std::vector<std::pair<std::string, std::string>>> field_blocks(const std::string& text) {
  std::vector<std::vector<std::pair<std::string, std::string>>> blocks(1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trimmed(line).empty()) {
      if (!blocks.back().empty()) blocks.emplace_back();
      continue;
    }
    if ((line.front() == ' ' || line.front() == '\t') && !blocks.back().empty()) {
      blocks.back().back().second += " " + trimmed(line);
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    blocks.back().emplace_back(core::ascii_lower(trimmed(line.substr(0, colon))), trimmed(line.substr(colon + 1)));
  }
  if (blocks.back().empty()) blocks.pop_back();
  return blocks;
}

std::string field(const std::vector<std::pair<std::string, std::string>>& block, const char* name) {
  for (const auto& [k, v] : block) {
    if (k == name) return v;
  }
  return "";
}

std::vector<DsnRecipient> dsn_recipients(const std::string& status_part) {
  std::vector<DsnRecipient> out;
  const auto blocks = field_blocks(status_part);
  for (std::size_t i = 1; i < blocks.size(); ++i) {
    DsnRecipient r;
    r.address = address_field(field(blocks[i], "final-recipient"));
    if (r.address.empty()) r.address = address_field(field(blocks[i], "original-recipient"));
    r.action = core::ascii_lower(field(blocks[i], "action"));
    r.status = field(blocks[i], "status");
    r.status = r.status.substr(0, r.status.find_first_of(" \t("));
    if (!r.address.empty()) out.push_back(std::move(r));
  }
  return out;
}

std::string parameter(const Poco::Net::MediaType& type, const std::string& name) {
  return type.hasParameter(name) ? type.getParameter(name) : std::string();
}

bool is_auto_reply(const Poco::Net::MessageHeader& h) {
  const std::string submitted = core::ascii_lower(trimmed(h.get("Auto-Submitted", "")));
  const std::string precedence = core::ascii_lower(trimmed(h.get("Precedence", "")));
  return (!submitted.empty() && submitted != "no") || h.has("X-Autoreply") || h.has("X-Autorespond") ||
         precedence == "auto_reply";
}

// The body of the first part of `wanted` type (lower-case) in a multipart
// body with this boundary; "" when there is none.
std::string report_part(std::istream& body, const std::string& boundary, const std::string& wanted) {
  Poco::Net::MultipartReader reader(body, boundary);
  // Poco keeps offering (empty) parts at the end of input that lacks the
  // closing boundary: stop at the end of input, and after kMaxParts.
  for (int parts = 0; parts < kMaxParts && !body.eof() && reader.hasNextPart(); ++parts) {
    Poco::Net::MessageHeader part;
    part.setFieldLimit(kMaxHeaderFields);
    reader.nextPart(part);
    std::ostringstream content;
    content << reader.stream().rdbuf();
    const Poco::Net::MediaType type(part.get("Content-Type", "text/plain"));
    if (core::ascii_lower(type.getType() + "/" + type.getSubType()) == wanted) return content.str();
  }
  return "";
}

}  // namespace

BounceReport parse_bounce(std::string_view message) {
  if (trimmed(message).empty()) throw BounceParseError("empty message");
  std::istringstream in{std::string(message)};
  Poco::Net::MessageHeader header;
  header.setFieldLimit(kMaxHeaderFields);
  BounceReport report;
  try {
    header.read(in);
    if (header.empty()) throw BounceParseError("no header fields");
    const Poco::Net::MediaType type(header.get("Content-Type", "text/plain"));
    const std::string kind = core::ascii_lower(type.getType() + "/" + type.getSubType());
    const std::string report_type = core::ascii_lower(parameter(type, "report-type"));
    if (kind == "multipart/report" && (report_type == "delivery-status" || report_type == "feedback-report")) {
      const std::string boundary = parameter(type, "boundary");
      if (boundary.empty()) throw BounceParseError("multipart/report without a boundary");
      const bool dsn = report_type == "delivery-status";
      const std::string part = report_part(in, boundary, dsn ? "message/delivery-status" : "message/feedback-report");
      if (part.empty())
        throw BounceParseError(dsn ? "no message/delivery-status part" : "no message/feedback-report part");
      if (dsn) {
        report.kind = BounceReport::Kind::Dsn;
        report.recipients = dsn_recipients(part);
      } else {
        report.kind = BounceReport::Kind::Complaint;
        const auto blocks = field_blocks(part);
        report.feedback_type = blocks.empty() ? "" : core::ascii_lower(field(blocks.front(), "feedback-type"));
      }
      return report;
    }
    if (is_auto_reply(header)) report.kind = BounceReport::Kind::AutoReply;
    return report;
  } catch (const Poco::Exception& e) {
    throw BounceParseError(e.displayText());
  }
}

}  // namespace svc::messaging
