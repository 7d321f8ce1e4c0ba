#pragma once
// The notification outbox as the sender and the operator see it: claiming due
// Pending rows of svc_notification_log, recording each outcome, queue
// statistics and manual re-queueing. Enqueueing and templates are in
// notification_repo.
//
// Every time comparison uses the database clock (NOW(), UTC session), so
// senders on several hosts agree on what is due and when a lease ends.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/outbox_mail.hpp"

namespace svc::db {

// One claimed (or, for --dry-run, due) outbox row: what the sender needs.
struct OutboxMessage {
  long long id = 0;
  OutboxMail mail;
  int attempts = 0;  // failed attempts so far
  long long created_unix = 0;
  int priority = 1;  // kPriorityHigh (0), normal (1) or bulk (2): notification_repo.hpp
};

// A row as `svc-admin outbox list` shows it.
struct OutboxListing {
  long long id = 0;
  long long site_id = 0;
  std::string event;
  std::string status;
  int attempts = 0;
  std::string recipient;
  std::string created_at;       // "YYYY-MM-DD HH:MM:SS" UTC
  std::string next_attempt_at;  // idem
  std::string sent_at;          // "" unless Sent
  std::string claimed_until;    // "" unless claimed
  std::string claimed_by;
  std::string last_error;
  std::string subject;  // as shown: a Pending mail's one-time codes and links redacted
};

// A site's mail log filters (manage/mail.hpp); "" = not filtered.
struct OutboxFilter {
  std::string status;  // Pending | Sent | Failed
  std::string event;
  std::string recipient;  // the row's whole recipient list (one address for account mail)
  std::string since;      // "YYYY-MM-DD HH:MM:SS" UTC: created at or after
  std::string until;      // idem: created before
};

// Where a page of the mail log ended: its last row's created_at and id.
struct OutboxPosition {
  std::string created_at;
  long long id = 0;
};

// The marker the redaction leaves where a one-time link or code was.
inline constexpr const char* kRedacted = "[redacted]";

struct OutboxStats {
  long long pending = 0, sent = 0, failed = 0;
  long long pending_due = 0;                     // Pending, due now and not claimed
  long long pending_claimed = 0;                 // Pending with a live lease
  long long oldest_pending_age = -1;             // seconds since the oldest Pending row was created; -1 = none
  long long pending_high = 0, pending_bulk = 0;  // Pending rows by priority (the rest are normal)
  long long quota_deferred_hour = 0;             // rows deferred by site quotas this UTC hour
  long long quota_deferred_day = 0;              // ... in the last 24 hours
  long long guard_deferred_sites = 0;            // sites whose bulk mail the bounce-rate guard holds now
};

// What the sender needs from the outbox; an interface so the sender's batch
// logic is unit-tested against an in-memory fake.
class OutboxQueue {
 public:
  virtual ~OutboxQueue() = default;
  virtual std::vector<OutboxMessage> claim(int limit, int lease_seconds, const std::string& claimer) = 0;
  virtual bool mark_sent(long long id, const std::string& claimer) = 0;
  virtual bool mark_retry(long long id, const std::string& claimer, long long delay_seconds,
                          const std::string& error) = 0;
  virtual bool mark_failed(long long id, const std::string& claimer, const std::string& error) = 0;
  virtual bool release(long long id, const std::string& claimer) = 0;
};

class OutboxRepo final : public OutboxQueue {
 public:
  explicit OutboxRepo(Database& db) : db_(db) {}

  // The bounce-rate guard ([smtp] max_bounce_rate, bounce_rate_min_mails):
  // claim() holds back the bulk mail of a site over the rate, moving its
  // due bulk rows 10 minutes on (SuppressionRepo::over_bounce_rate). 0 = off
  // (the default).
  void set_bounce_guard(int percent, int min_mails) {
    guard_percent_ = percent;
    guard_min_mails_ = min_mails;
  }

  // In one transaction (READ COMMITTED): locks up to `limit` due, unclaimed
  // Pending rows with FOR UPDATE SKIP LOCKED, sets claimed_until = NOW() +
  // lease_seconds and claimed_by = claimer, commits. Rows locked by a
  // concurrent claim are skipped, so concurrent senders never get the same
  // row while its lease runs. Which rows (outbox_claim.cpp): higher priority
  // first; within a priority the batch is shared round-robin between the
  // sites with due rows, oldest waiting site first; a site's hourly quota
  // (svc_sites.mail_per_hour) caps its normal and bulk rows, and the rest of
  // them move to the next hour. The result interleaves sites, priority
  // order kept. On Galera, where locks are node-local, the UPDATE takes a
  // row only while it is still unclaimed and a claim that loses to another
  // node's (TransactionConflict, or 1213 at any statement or at COMMIT)
  // commits nothing and runs again ([database] transaction_attempts): a row
  // is returned only when this claim of it committed. REQUIRES: no
  // transaction open.
  std::vector<OutboxMessage> claim(int limit, int lease_seconds, const std::string& claimer) override;

  // The rows claim() would take now, without locking or changing anything.
  std::vector<OutboxMessage> due(int limit);

  // Outcome writes. Each touches the row only while it is Pending and held by
  // `claimer`; false means the claim was lost (lease expired and another run
  // took the row), and nothing was written.
  // Sent and Failed are final, so both also replace every JWT in the stored
  // body with "[redacted]" (a reset link in the log must not stay live).
  // Sent: sent_at = NOW(), claim cleared. last_error is kept as history.
  bool mark_sent(long long id, const std::string& claimer) override;
  // attempts + 1, next_attempt_at = NOW() + delay_seconds, claim cleared.
  bool mark_retry(long long id, const std::string& claimer, long long delay_seconds, const std::string& error) override;
  // Failed, attempts + 1, claim cleared.
  bool mark_failed(long long id, const std::string& claimer, const std::string& error) override;
  // Clears the claim without counting an attempt (a run stopping early).
  bool release(long long id, const std::string& claimer) override;

  // --- svc-admin ---
  OutboxStats stats();
  // Newest first. status: Pending | Sent | Failed; site_id 0 = every site.
  std::vector<OutboxListing> list(const std::string& status, long long site_id, int limit);
  std::optional<OutboxListing> find(long long id);
  // The row as the sender reads it, whatever its status (svc-admin mail ingest).
  std::optional<OutboxMessage> message(long long id);

  // --- a site's mail log (manage/mail.hpp); every query scoped to site_id ---
  // Newest first (created_at, then id), after `after` when given: one range
  // read of the index sql/038 names for the filters given.
  std::vector<OutboxListing> site_page(long long site_id, const OutboxFilter& filter,
                                       const std::optional<OutboxPosition>& after, int limit);
  std::optional<OutboxListing> find(long long site_id, long long id);
  // The row as the sender reads it, its one-time links and codes redacted
  // as they are once it is Sent or Failed (a Pending reset link stays live).
  std::optional<OutboxMessage> message_shown(long long site_id, long long id);
  // Failed → Pending, attempts 0, due now. False when the row is not Failed.
  bool requeue_failed(long long site_id, long long id);

 private:
  void add_quota_stats(OutboxStats& s);
  Database& db_;
  int guard_percent_ = 0;
  int guard_min_mails_ = 100;
};

}  // namespace svc::db
