#pragma once
// What a message that came back to the bounce address says (svc-admin mail
// ingest): an RFC 3464 delivery status notification, an RFC 5965 (ARF)
// complaint, an RFC 3834 auto-reply, or something else. Pure: bytes in, a
// value out; MIME is read with Poco (MessageHeader, MultipartReader).

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace svc::messaging {

struct DsnRecipient {
  std::string address;  // Final-Recipient (else Original-Recipient), lower-cased, "rfc822;" removed
  std::string action;   // "failed", "delayed", ... lower-cased
  std::string status;   // "5.1.1"
  bool hard() const { return action == "failed" && !status.empty() && status.front() == '5'; }
};

struct BounceReport {
  enum class Kind {
    Dsn,        // multipart/report; report-type=delivery-status
    Complaint,  // multipart/report; report-type=feedback-report
    AutoReply,  // Auto-Submitted other than "no", X-Autoreply, Precedence: auto_reply
    Other,      // a message of none of these kinds (a person writing back)
  } kind = Kind::Other;
  std::vector<DsnRecipient> recipients;  // Dsn only
  std::string feedback_type;             // Complaint: "abuse", "fraud", ... lower-cased
};

// Thrown for a message that cannot be read at all: no header, a multipart
// without a usable boundary, a report without its status part.
struct BounceParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

BounceReport parse_bounce(std::string_view message);

}  // namespace svc::messaging
