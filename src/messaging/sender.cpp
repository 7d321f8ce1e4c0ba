#include "messaging/sender.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <utility>

#include "core/log.hpp"

namespace svc::messaging {

Sender::Sender(db::OutboxQueue& queue, std::vector<Mailer*> mailers, const core::Clock& clock, SenderSettings settings,
               std::string claimer, Uniform uniform, const volatile std::sig_atomic_t* stop)
    : queue_(queue),
      mailers_(std::move(mailers)),
      clock_(clock),
      settings_(settings),
      claimer_(std::move(claimer)),
      uniform_(std::move(uniform)),
      stop_(stop) {}

Sender::Sender(db::OutboxQueue& queue, Mailer& mailer, const core::Clock& clock, SenderSettings settings,
               std::string claimer, Uniform uniform, const volatile std::sig_atomic_t* stop)
    : Sender(queue, std::vector<Mailer*>{&mailer}, clock, settings, std::move(claimer), std::move(uniform), stop) {}

// One batch shared by the sessions: `rows` is fixed before they start; every
// other member is read and written with queue_mutex_ held.
struct Sender::BatchState {
  std::vector<db::OutboxMessage> rows;
  std::vector<std::map<std::string, std::string>> blocked;  // per row: suppressed address -> reason
  std::size_t next = 0;                                     // the first row no session has taken yet
  long long started = 0;
  int temporary_in_a_row = 0;  // across sessions: the relay's health, not one session's
  bool halted = false;         // stop, lease half gone, relay trouble or an error: take no more rows
  std::exception_ptr error;    // the first exception a session thread threw
  BatchCounts counts;
};

BatchCounts Sender::run_batch() {
  BatchState state;
  state.started = clock_.now();
  state.rows = queue_.claim(settings_.batch, settings_.lease_seconds, claimer_);
  state.counts.claimed = static_cast<int>(state.rows.size());
  if (dkim_lookup_) {
    for (const auto& row : state.rows) {
      if (!dkim_keys_.count(row.mail.site_id)) dkim_keys_[row.mail.site_id] = dkim_lookup_(row.mail.site_id);
    }
  }
  state.blocked = suppressed_recipients(suppression_lookup_, state.rows);
  const std::size_t sessions = std::min(mailers_.size(), state.rows.size());
  if (sessions <= 1) {
    if (!state.rows.empty()) run_session(*mailers_.front(), state);
  } else {
    // Threads per batch, not per process: a batch is 50 rows of network
    // round trips, so creating a few threads is noise, and there is no pool
    // to shut down on SIGTERM.
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < sessions; ++i) {
      threads.emplace_back([&, i] {
        // A database error in one session stops them all and surfaces here
        // as it would in a single session (the caller's pass_failed).
        try {
          run_session(*mailers_[i], state);
        } catch (...) {
          std::lock_guard lock(queue_mutex_);
          if (!state.error) state.error = std::current_exception();
          state.halted = true;
        }
      });
    }
    for (auto& t : threads) t.join();
    if (state.error) std::rethrow_exception(state.error);
  }
  for (std::size_t j = state.next; j < state.rows.size(); ++j) {
    if (queue_.release(state.rows[j].id, claimer_)) ++state.counts.released;
  }
  BatchCounts& counts = state.counts;
  if (counts.claimed > 0) {
    core::LogLine line("info", "batch");
    add_counts(line, counts);
    line.num("claim_lost", counts.claim_lost).flag("relay_trouble", counts.relay_trouble).emit();
  }
  return counts;
}

void Sender::run_session(Mailer& mailer, BatchState& state) {
  for (;;) {
    std::size_t i = 0;
    {
      std::lock_guard lock(queue_mutex_);
      // Past half the lease another run may soon take these rows: hand the
      // rest back (run_batch releases them) rather than risk sending them twice.
      const bool lease_short = (clock_.now() - state.started) * 2 > settings_.lease_seconds;
      if (stopping() || lease_short || state.counts.relay_trouble) state.halted = true;
      if (state.halted || state.next >= state.rows.size()) return;
      i = state.next++;
    }
    send_one(mailer, i, state);
  }
}

// Sends without the lock (the sessions' SMTP exchanges overlap), then
// records the outcome with it. Why the database call runs under
// queue_mutex_: the OutboxQueue is one database connection, which is not
// thread-safe, and every session (and run_batch's claims and releases) goes
// through it, so each call on it must be serialised anyway. Holding the lock
// across the write and the counting also keeps the counts and
// temporary_in_a_row in the order the outcomes were written, so the
// relay-trouble decision sees what the table shows. The price is small: the
// write is one short UPDATE by primary key, while the SMTP exchange it
// follows (the slow part) runs unlocked.
void Sender::send_one(Mailer& mailer, std::size_t index, BatchState& state) {
  const db::OutboxMessage& row = state.rows[index];
  OutgoingMail mail = outgoing_mail_for(row);
  if (const std::string reason = drop_suppressed(mail, state.blocked[index]);
      !reason.empty() && envelope_recipients(mail).empty()) {
    std::lock_guard lock(queue_mutex_);
    if (!record_suppressed(queue_, claimer_, row, reason)) ++state.counts.claim_lost;
    ++state.counts.suppressed;
    return;
  }
  if (auto key = dkim_keys_.find(row.mail.site_id); key != dkim_keys_.end()) mail.dkim = key->second;
  // After the drop: no copy goes to a suppressed address. No recipient at
  // all: the mailer's "no recipients" failure.
  const std::vector<OutgoingMail> copies = copies_per_recipient(mail, row, marks_);
  const SendResult result = copies.empty() ? mailer.send(mail) : send_copies(mailer, copies);
  std::lock_guard lock(queue_mutex_);
  BatchCounts& counts = state.counts;
  int& temporary_in_a_row = state.temporary_in_a_row;
  const Outcome outcome = decide_outcome(result.status, row.attempts, settings_.max_attempts);
  bool recorded = false;
  long long delay = 0;
  switch (outcome) {
    case Outcome::Sent:
      recorded = queue_.mark_sent(row.id, claimer_);
      ++counts.sent;
      temporary_in_a_row = 0;
      break;
    case Outcome::Retry:
      delay = retry_delay_seconds(settings_.backoff_seconds, row.attempts, uniform_(401));
      recorded = queue_.mark_retry(row.id, claimer_, delay, result.detail);
      ++counts.retry;
      ++temporary_in_a_row;
      break;
    case Outcome::Failed: {
      std::string error = result.detail;
      if (result.status == SendStatus::TemporaryFailure) {
        error = "gave up after " + std::to_string(row.attempts + 1) + " attempts: " + error;
        ++temporary_in_a_row;
      } else {
        temporary_in_a_row = 0;
      }
      recorded = queue_.mark_failed(row.id, claimer_, error);
      ++counts.failed;
      break;
    }
  }
  if (outcome == Outcome::Failed) record_dead_recipients(dead_recipient_hook_, row, result.dead_recipients);
  counts.relay_trouble = counts.relay_trouble || temporary_in_a_row >= settings_.relay_trouble_after;
  if (!recorded) ++counts.claim_lost;
  if (outcome != Outcome::Sent || !recorded) {
    core::LogLine line(outcome == Outcome::Failed ? "error" : "warn", recorded ? outcome_event(outcome) : "claim_lost");
    line.num("id", row.id)
        .num("site_id", row.mail.site_id)
        .str("mail_event", row.mail.event)
        .num("attempts", row.attempts + 1);
    if (outcome == Outcome::Retry) line.num("retry_in", delay);
    if (outcome != Outcome::Sent) line.str("error", result.detail);
    line.emit();
  }
}

BatchCounts Sender::run_pass() {
  BatchCounts total;
  dkim_keys_.clear();
  const long long started = clock_.now();
  while (!stopping() && clock_.now() - started < settings_.max_pass_seconds) {
    const BatchCounts batch = run_batch();
    total += batch;
    if (batch.claimed < settings_.batch || batch.relay_trouble || batch.released > 0) break;
  }
  close_sessions();
  return total;
}

void Sender::close_sessions() {
  for (Mailer* m : mailers_) m->close();
}

}  // namespace svc::messaging
