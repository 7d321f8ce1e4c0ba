#include "messaging/envelopes.hpp"

#include <utility>

#include "db/notification_repo.hpp"
#include "messaging/mail_tags.hpp"

namespace svc::messaging {

std::vector<OutgoingMail> copies_per_recipient(const OutgoingMail& mail, const db::OutboxMessage& row,
                                               const MailMarks& marks) {
  std::vector<OutgoingMail> copies;
  for (const auto& recipient : envelope_recipients(mail)) {
    OutgoingMail& copy = copies.emplace_back(mail);
    copy.envelope_to = {recipient};
    if (marks.key.empty()) continue;
    if (!marks.bounce_address.empty()) {
      copy.envelope_from = verp_address(marks.bounce_address, row.id, recipient, marks.key);
    }
    if (!marks.unsubscribe_url.empty() && row.priority == db::kPriorityBulk) {
      copy.list_unsubscribe = unsubscribe_link(marks.unsubscribe_url, row.mail.site_id, recipient, marks.key);
    }
  }
  return copies;
}

SendResult send_copies(Mailer& mailer, const std::vector<OutgoingMail>& copies) {
  if (copies.size() == 1) return mailer.send(copies.front());
  // A row with one bad address is refused whole, as one envelope was: no
  // copy goes out before every address is known to be sendable.
  std::vector<std::string> recipients;
  for (const auto& copy : copies) recipients.push_back(copy.envelope_to.front());
  const OutgoingMail& first = copies.front();
  if (auto problem = envelope_problem(first.envelope_from.empty() ? first.from : first.envelope_from, recipients)) {
    return *problem;
  }
  SendResult sum{SendStatus::Sent, ""};
  std::size_t delivered = 0;
  for (const auto& copy : copies) {
    SendResult result = mailer.send(copy);
    if (result.status == SendStatus::Sent) {
      ++delivered;
      continue;
    }
    sum.detail += (sum.detail.empty() ? "" : "; ") + copy.envelope_to.front() + ": " + result.detail;
    for (auto& dead : result.dead_recipients) sum.dead_recipients.push_back(std::move(dead));
    if (result.status == SendStatus::PermanentFailure) {
      sum.status = SendStatus::PermanentFailure;
    } else {
      if (sum.status == SendStatus::Sent) sum.status = SendStatus::TemporaryFailure;
      break;  // the retry sends the rest
    }
  }
  if (sum.status != SendStatus::Sent && delivered > 0) {
    sum.detail += " (delivered to " + std::to_string(delivered) + " of " + std::to_string(copies.size()) + ")";
  }
  return sum;
}

}  // namespace svc::messaging
