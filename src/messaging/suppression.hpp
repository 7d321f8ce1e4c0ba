#pragma once
// The recipients svc-sender must not or cannot mail: the ones a suppression
// lists, dropped before the SMTP exchange, and the ones the server refused at
// RCPT TO as dead, handed on to be suppressed after it. Sender (sender.hpp)
// calls these; it serialises the calls that write through the OutboxQueue
// or the hook.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "db/outbox_repo.hpp"
#include "messaging/smtp_session.hpp"

namespace svc::messaging {

// Which of a row's addresses (any case) are suppressed for it: lower-cased
// address -> reason (db::SuppressionRepo::blocking).
using SuppressionLookup =
    std::function<std::map<std::string, std::string>(const db::OutboxMessage&, const std::vector<std::string>&)>;

// Records a recipient the server refused at RCPT TO as a dead address
// (SendResult::dead_recipients): svc-sender suppresses it ("bounce") and
// notes a hard bounce, as `svc-admin mail ingest` does for a DSN.
using DeadRecipientHook = std::function<void(const db::OutboxMessage&, const DeadRecipient&)>;

// For each of `rows`, in order: `lookup` over the envelope recipients of its
// mail. All empty when `lookup` is empty (no suppression list).
std::vector<std::map<std::string, std::string>> suppressed_recipients(const SuppressionLookup& lookup,
                                                                      const std::vector<db::OutboxMessage>& rows);

// A claimed row whose every recipient is suppressed: marks it Failed
// "suppressed: <reason>" without an SMTP attempt, like a refused recipient
// (a suppression is policy, not a failure of the run), and logs
// send_suppressed, or claim_lost when another run had taken the row.
// Returns whether the outcome was recorded (OutboxQueue::mark_failed).
// REQUIRES: no other call on `queue` runs meanwhile.
bool record_suppressed(db::OutboxQueue& queue, const std::string& claimer, const db::OutboxMessage& row,
                       const std::string& reason);

// Hands each of `dead` to `hook` (nothing when it is empty) and logs it:
// send_dead_recipient, or send_dead_recipient_not_recorded with the error
// when the hook threw (a std::exception is logged, not raised: losing one
// suppression must not end the batch).
void record_dead_recipients(const DeadRecipientHook& hook, const db::OutboxMessage& row,
                            const std::vector<DeadRecipient>& dead);

}  // namespace svc::messaging
