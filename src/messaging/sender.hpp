#pragma once
// svc-sender's work: claim due Pending outbox rows, deliver them over N
// reused SMTP sessions in parallel (one thread and one Mailer per session),
// record each outcome. Delivery is at-least-once: a run that dies mid-batch
// leaves its rows claimed until the lease ends, and the next run claims them
// again; at most one message per session can be in flight at that moment.
// Claims and outcome writes go through the one OutboxQueue, serialised by
// the Sender (the queue itself need not be thread-safe). One Sender per
// process; call it from one thread.

#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "db/outbox_repo.hpp"
#include "messaging/batch_counts.hpp"
#include "messaging/envelopes.hpp"
#include "messaging/mime.hpp"
#include "messaging/outgoing_mail.hpp"
#include "messaging/retry_policy.hpp"
#include "messaging/smtp_session.hpp"
#include "messaging/suppression.hpp"

namespace svc::messaging {

struct SenderSettings {
  int batch = 50;
  int lease_seconds = 300;
  int max_attempts = 5;
  int backoff_seconds = 60;
  // A pass stops claiming new batches after this long (the systemd unit
  // allows 5 minutes per run).
  int max_pass_seconds = 240;
  // This many temporary failures in a row (no success between) means the
  // relay itself is in trouble: the rest of the batch is released untouched
  // and the pass ends, instead of burning every row's attempts.
  int relay_trouble_after = 3;
};

class Sender {
 public:
  // Returns a uniformly random integer in [0, upper) (randombytes_uniform).
  using Uniform = std::function<std::uint32_t(std::uint32_t)>;

  // `claimer` names this run in claimed_by (host:pid:random). `stop`, when
  // not null, is polled between messages (set by SIGTERM/SIGINT). `mailers`
  // are the sessions: one each, none null, used by one thread at a time;
  // `clock` and `uniform` are called from the session threads, one at a
  // time (with the Sender's lock held).
  Sender(db::OutboxQueue& queue, std::vector<Mailer*> mailers, const core::Clock& clock, SenderSettings settings,
         std::string claimer, Uniform uniform, const volatile std::sig_atomic_t* stop = nullptr);
  // One session.
  Sender(db::OutboxQueue& queue, Mailer& mailer, const core::Clock& clock, SenderSettings settings, std::string claimer,
         Uniform uniform, const volatile std::sig_atomic_t* stop = nullptr);

  // Where a site's DKIM key comes from (nullopt: its mail is not signed).
  // Called in the thread that calls run_batch, once per site and pass, so a
  // key made with `svc-admin dkim-keys` is used from the next pass on.
  using DkimLookup = std::function<std::optional<DkimKey>(long long site_id)>;
  void set_dkim_lookup(DkimLookup lookup) { dkim_lookup_ = std::move(lookup); }

  // Which of a row's addresses are suppressed (suppression.hpp). Called in
  // the thread that calls run_batch, once per claimed row, before any
  // session starts. A mail left with no recipient is Failed
  // "suppressed: <reason>" without an SMTP attempt; one with some left goes
  // to those.
  void set_suppression_lookup(SuppressionLookup lookup) { suppression_lookup_ = std::move(lookup); }

  // What becomes of a recipient refused at RCPT TO (suppression.hpp). Called
  // with the Sender's lock held (it shares the queue's connection), after
  // the row's outcome is written; an exception is logged, not raised.
  void set_dead_recipient_hook(DeadRecipientHook hook) { dead_recipient_hook_ = std::move(hook); }

  // VERP envelope sender and one-click unsubscribe, per recipient (envelopes.hpp).
  void set_marks(MailMarks marks) { marks_ = std::move(marks); }

  // Claims up to settings.batch rows and sends them; logs one progress line
  // (JSON on stderr) when it claimed anything.
  BatchCounts run_batch();

  // Batches until one comes back short of settings.batch, the relay is in
  // trouble, stop is set, or max_pass_seconds have passed. Then ends every
  // SMTP session (QUIT).
  BatchCounts run_pass();

  // Ends every SMTP session (after a failed pass).
  void close_sessions();

 private:
  struct BatchState;
  void run_session(Mailer& mailer, BatchState& state);
  void send_one(Mailer& mailer, std::size_t index, BatchState& state);
  bool stopping() const { return stop_ != nullptr && *stop_ != 0; }

  db::OutboxQueue& queue_;
  std::vector<Mailer*> mailers_;
  std::mutex queue_mutex_;  // guards queue_ and the BatchState of a batch
  DkimLookup dkim_lookup_;
  SuppressionLookup suppression_lookup_;
  DeadRecipientHook dead_recipient_hook_;
  MailMarks marks_;
  // Per pass; written only before a batch's sessions start, read by them.
  std::map<long long, std::optional<DkimKey>> dkim_keys_;
  const core::Clock& clock_;
  SenderSettings settings_;
  std::string claimer_;
  Uniform uniform_;
  const volatile std::sig_atomic_t* stop_;
};

}  // namespace svc::messaging
