#pragma once
// Turning one notification into the bytes of an RFC 5322 / MIME message.
// Pure: no I/O, no clock, no randomness (the boundary is derived from the
// content), so the same OutgoingMail always yields the same text.

#include <optional>
#include <string>
#include <vector>

#include "messaging/dkim.hpp"

namespace svc::messaging {

struct OutgoingMail {
  std::string message_id;                // "<log-123.abc@host>"; brackets added if missing; omitted if empty
  std::string from;                      // bare address
  std::string from_name;                 // display name, UTF-8; may be empty
  std::vector<std::string> to, cc, bcc;  // bare addresses
  std::string subject;                   // UTF-8, one line (controls are removed anyway)
  std::string html;                      // UTF-8 HTML body; may be empty (then text/plain only)
  std::string text;                      // UTF-8 text body; empty -> derived from html by html_to_text
  long long date_unix = 0;               // Date header, seconds since the epoch, written in UTC
  std::optional<DkimKey> dkim;           // sign with this key (SmtpMailer); build_mime ignores it
  std::string envelope_from;             // MAIL FROM (the VERP bounce address); empty -> from
  std::vector<std::string> envelope_to;  // RCPT TO (one copy per recipient, envelopes.hpp); empty -> to+cc+bcc
  std::string list_unsubscribe;          // one-click unsubscribe URL (RFC 8058); empty -> no List-Unsubscribe
};

// The full message with CRLF line endings: Date, From, To (or
// "undisclosed-recipients:;" when there is no To), Cc, Subject, Message-ID,
// List-Unsubscribe and List-Unsubscribe-Post (when list_unsubscribe is set),
// MIME-Version, then multipart/alternative (text/plain, then text/html), both
// UTF-8 and quoted-printable, so no body line exceeds 76 characters. A subject
// or display name with non-ASCII (or "=?") becomes RFC 2047 B encoded-words;
// long headers are folded; no header line exceeds 998 characters. Bcc never
// appears. CR, LF and other controls inside header values are removed. The
// text ends with CRLF. Dot-stuffing is left to the SMTP layer.
std::string build_mime(const OutgoingMail& mail);

// The text/plain part build_mime writes: mail.text, or when it is empty the
// text derived from mail.html (html_to_text).
std::string text_part(const OutgoingMail& mail);

// envelope_to when set, else to + cc + bcc in that order; controls stripped,
// blanks trimmed, empties dropped, duplicates (compared case-insensitively)
// removed keeping the first.
std::vector<std::string> envelope_recipients(const OutgoingMail& mail);

}  // namespace svc::messaging
