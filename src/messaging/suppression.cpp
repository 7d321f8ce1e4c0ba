#include "messaging/suppression.hpp"

#include <exception>

#include "core/log.hpp"
#include "messaging/mime.hpp"
#include "messaging/outgoing_mail.hpp"

namespace svc::messaging {

std::vector<std::map<std::string, std::string>> suppressed_recipients(const SuppressionLookup& lookup,
                                                                      const std::vector<db::OutboxMessage>& rows) {
  std::vector<std::map<std::string, std::string>> blocked(rows.size());
  if (!lookup) return blocked;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    blocked[i] = lookup(rows[i], envelope_recipients(outgoing_mail_for(rows[i])));
  }
  return blocked;
}

bool record_suppressed(db::OutboxQueue& queue, const std::string& claimer, const db::OutboxMessage& row,
                       const std::string& reason) {
  const bool recorded = queue.mark_failed(row.id, claimer, "suppressed: " + reason);
  core::LogLine("info", recorded ? "send_suppressed" : "claim_lost")
      .num("id", row.id)
      .num("site_id", row.mail.site_id)
      .str("mail_event", row.mail.event)
      .str("reason", reason)
      .emit();
  return recorded;
}

// The row's outcome is already written when this runs, and a dead address is
// refused again (and recorded then) if it is ever sent to: an error here is
// logged and the batch goes on.
void record_dead_recipients(const DeadRecipientHook& hook, const db::OutboxMessage& row,
                            const std::vector<DeadRecipient>& dead) {
  if (!hook) return;
  for (const auto& d : dead) {
    std::string error;
    try {
      hook(row, d);
    } catch (const std::exception& e) {
      error = e.what();
    }
    core::LogLine line(error.empty() ? "info" : "error",
                       error.empty() ? "send_dead_recipient" : "send_dead_recipient_not_recorded");
    line.num("id", row.id).num("site_id", row.mail.site_id).str("status", d.status);
    if (!error.empty()) line.str("error", error);
    line.emit();
  }
}

}  // namespace svc::messaging
