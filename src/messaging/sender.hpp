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

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "db/outbox_repo.hpp"
#include "messaging/mime.hpp"
#include "messaging/smtp_session.hpp"

namespace svc::messaging {

// --- pure helpers ---

struct Mailbox {
  std::string name;     // display name, "" when none
  std::string address;  // bare address (not validated here)
};

// "Name <addr>", "\"Last, First\" <addr>", "<addr>" or a bare "addr".
// Blanks are trimmed, a quoted name is unquoted, controls are removed.
Mailbox parse_mailbox(std::string_view text);

// "<svc.{log_id}.{site_id}@{domain of from_address}>": the same for every
// attempt of one row, so a receiver can drop the duplicate that
// at-least-once delivery may produce. "localhost" when the address has no
// usable domain.
std::string message_id_for(long long log_id, long long site_id, std::string_view from_address);

// Delay before the next attempt after a temporary failure:
// base_seconds * 2^failures_before (failures_before = attempts already
// recorded, so the first retry waits base_seconds), capped at one day, then
// scaled by (800 + jitter_permille) / 1000, i.e. -20%..+20% for
// jitter_permille in [0, 400] (larger values are clamped). At least 1.
long long retry_delay_seconds(long long base_seconds, int failures_before, unsigned jitter_permille);

enum class Outcome { Sent, Retry, Failed };

// What to record for a send result of a row with `failures_before` recorded
// attempts: a temporary failure that would be attempt number max_attempts
// is final.
Outcome decide_outcome(SendStatus status, int failures_before, int max_attempts);

// The e-mail for one outbox row: From split into name and address, the
// address lists split, Date = the row's creation time (stable across
// retries, like the Message-ID), text part derived from the HTML.
OutgoingMail outgoing_mail_for(const db::OutboxMessage& row);

// --- the batch loop ---

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

struct BatchCounts {
  int claimed = 0, sent = 0, retry = 0, failed = 0;
  int released = 0;    // handed back unsent (stop, lease half gone, relay trouble)
  int claim_lost = 0;  // outcome not recorded: another run had taken the row
  bool relay_trouble = false;

  BatchCounts& operator+=(const BatchCounts& o);
};

// Adds claimed, sent, retry, failed and released (in this order) to `line`.
void add_counts(core::LogLine& line, const BatchCounts& counts);

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
  void send_one(Mailer& mailer, const db::OutboxMessage& row, BatchState& state);
  bool stopping() const { return stop_ != nullptr && *stop_ != 0; }

  db::OutboxQueue& queue_;
  std::vector<Mailer*> mailers_;
  std::mutex queue_mutex_;  // guards queue_ and the BatchState of a batch
  DkimLookup dkim_lookup_;
  // Per pass; written only before a batch's sessions start, read by them.
  std::map<long long, std::optional<DkimKey>> dkim_keys_;
  const core::Clock& clock_;
  SenderSettings settings_;
  std::string claimer_;
  Uniform uniform_;
  const volatile std::sig_atomic_t* stop_;
};

// The SMTP session settings for a [smtp] configuration section.
SmtpSettings smtp_settings(const config::SmtpSettings& c);

}  // namespace svc::messaging
