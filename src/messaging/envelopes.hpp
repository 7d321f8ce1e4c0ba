#pragma once
// One SMTP envelope per recipient (docs/decisions.md, issue 36): every
// recipient of an outbox row gets a copy of its own, whose envelope sender
// is a VERP address naming the row and that recipient (mail_tags.hpp) and,
// for bulk mail, whose List-Unsubscribe names that recipient. So a bounce,
// a complaint or an unsubscribe can only ever be about the recipient who
// received that copy, never about a co-recipient.

#include <string>
#include <vector>

#include "db/outbox_repo.hpp"
#include "messaging/mime.hpp"
#include "messaging/smtp_session.hpp"

namespace svc::messaging {

// What svc-sender adds for deliverability ([smtp] bounce_address,
// unsubscribe_url, [keys] mail_key); empty strings turn each part off (an
// empty key turns off both).
struct MailMarks {
  std::string bounce_address;
  std::string unsubscribe_url;
  std::string key;
};

// The copies of `mail` (the mail of `row`) for the relay, one per envelope
// recipient, in order: each has that recipient alone in envelope_to, the
// VERP address for it as envelope sender, and for a bulk row (priority 2)
// the one-click unsubscribe URL for it. Everything else, the To and Cc
// headers included, is the same in every copy. Pure.
std::vector<OutgoingMail> copies_per_recipient(const OutgoingMail& mail, const db::OutboxMessage& row,
                                               const MailMarks& marks);

// Sends `copies` in order over `mailer` and sums up the row's outcome:
// Sent when every copy was; else PermanentFailure when any copy was refused
// with a permanent failure, else TemporaryFailure. After a temporary
// failure the rest are not tried (the row is retried, all of it, so a
// retry can repeat a copy already delivered: at-least-once). The detail
// is the one failure's, or "<recipient>: <detail>" joined with "; ", and
// says how many copies were delivered when some were; dead_recipients
// gathers every copy's. Nothing is sent when an address of any copy is
// not sendable (envelope_problem). REQUIRES: copies not empty, each with
// envelope_to set (copies_per_recipient).
SendResult send_copies(Mailer& mailer, const std::vector<OutgoingMail>& copies);

}  // namespace svc::messaging
