// OutboxRepo::claim: which due rows a sender takes, in one transaction.
//
// Priority first: a password-reset mail must not wait behind a 20,000-row
// newsletter, so the claim fills the batch from priority 0 (high), then 1,
// then 2. Within a priority it shares the batch between the sites that have
// due rows (the sites whose oldest due row waited longest come first, at
// most `limit` of them) in rounds: each round asks every site still holding
// rows for an equal share of what is left, so one site's backlog takes only
// its share. Every read goes through ix_svc_log_claim (status, priority,
// site_id, next_attempt_at): Sent and Failed rows are never read, and a
// site's fetch reads its due rows plus at most the rows other senders hold.
//
// Quotas: a site with mail_per_hour takes at most what is left of it this
// UTC hour (svc_mail_quota.claimed); once it is used up, its due normal and
// bulk rows move to the start of the next hour (svc_mail_quota.deferred),
// never dropped. High-priority mail counts against the quota but is never
// held back by it. The quota row is locked (in site id order per priority)
// for the rest of the transaction, so concurrent senders never overshoot it;
// across priorities the order can differ, and the rare deadlock that allows
// ends one claim with an error (its pass fails; the next pass claims again).
//
// Senders on several Galera nodes: row locks and SKIP LOCKED hold only on
// the node that takes them, so two senders can pick the same rows. The
// claim stays one transaction whose UPDATE takes a row only while it is
// still Pending and unclaimed; then exactly one claim of a row commits:
// - the other node already applied the rival claim: the UPDATE matches
//   fewer rows than were picked, and TransactionConflict ends the attempt;
// - the rival claim arrives while ours runs: the node aborts ours (1213);
// - both run at once: certification lets the first commit and fails the
//   other's COMMIT (1213).
// Nothing of a losing claim is committed, so with_transaction_retry runs it
// again (it then sees the winner's claims and takes other rows), and the
// sender only ever sends rows claim() returned, i.e. whose claim committed.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/outbox_repo.hpp"
#include "db/outbox_rows.hpp"
#include "db/suppression_repo.hpp"
#include "db/transaction.hpp"

namespace svc::db {
namespace {

constexpr int kPriorities = 3;  // 0 high, 1 normal, 2 bulk

constexpr const char* kHourStart = "DATE_FORMAT(NOW(), '%Y-%m-%d %H:00:00')";

struct DueSite {
  long long site_id = 0;
  std::optional<long long> per_hour;  // nullopt = unlimited
  long long allowance = 0;            // rows it may still take this hour (with a quota)
  bool exhausted = false;             // returned fewer rows than asked: nothing left
  std::vector<OutboxMessage> taken;
};

// The sites with due rows of this priority, oldest due row first, and their
// hourly quota.
std::vector<DueSite> due_sites(Database& db, int priority, int limit) {
  return db.rows(
      "SELECT d.site_id, COALESCE(s.mail_per_hour, -1) FROM"
      " (SELECT site_id, MIN(next_attempt_at) AS oldest FROM svc_notification_log"
      "  WHERE status = 'Pending' AND priority = ? AND next_attempt_at <= NOW()"
      "  GROUP BY site_id ORDER BY oldest, site_id LIMIT ?) d"
      " LEFT JOIN svc_sites s ON s.id = d.site_id ORDER BY d.oldest, d.site_id",
      [&](Params& p) { p.integer(priority).integer(limit); },
      [](RowReader& r) {
        DueSite d;
        d.site_id = r.integer();
        const long long per_hour = r.integer();
        if (per_hour >= 0) d.per_hour = per_hour;
        return d;
      });
}

// Locks this hour's quota row of the site (creating it) and returns the
// rows it may still claim.
long long lock_allowance(Database& db, long long site_id, long long per_hour) {
  db.execute(std::string("INSERT INTO svc_mail_quota (site_id, hour_start) VALUES (?, ") + kHourStart +
                 ") ON DUPLICATE KEY UPDATE claimed = claimed",
             [&](Params& p) { p.integer(site_id); });
  const auto claimed = db.one(
      std::string("SELECT claimed FROM svc_mail_quota WHERE site_id = ? AND hour_start = ") + kHourStart,
      [&](Params& p) { p.integer(site_id); }, [](RowReader& r) { return r.integer(); });
  return std::max(0LL, per_hour - claimed.value_or(0));
}

// Up to `count` due, unclaimed rows of the site, claimed for `claimer`.
std::vector<OutboxMessage> take_rows(Database& db, int priority, long long site_id, long long count, int lease_seconds,
                                     const std::string& claimer) {
  auto rows = db.rows(
      std::string("SELECT ") + kMessageColumns +
          " FROM svc_notification_log WHERE status = 'Pending' AND priority = ? AND site_id = ?"
          " AND next_attempt_at <= NOW() AND (claimed_until IS NULL OR claimed_until < NOW())"
          " ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED",
      [&](Params& p) { p.integer(priority).integer(site_id).integer(count); }, read_message);
  // Claimed at once: a later round of this transaction must not see them as
  // due again (SKIP LOCKED skips only other transactions' locks). One
  // statement for the lot (its text varies with the count, at most `limit`
  // variants in the connection's statement cache).
  if (rows.empty()) return rows;
  const int claimed = db.execute(
      "UPDATE svc_notification_log SET claimed_until = DATE_ADD(NOW(), INTERVAL ? SECOND), claimed_by = ?"
      " WHERE id IN (" +
          placeholders(rows.size()) + ") AND status = 'Pending' AND (claimed_until IS NULL OR claimed_until < NOW())",
      [&](Params& p) {
        p.integer(lease_seconds).text(claimer);
        for (const auto& row : rows) p.integer(row.id);
      });
  if (claimed != static_cast<int>(rows.size())) {
    throw TransactionConflict("outbox claim: " + std::to_string(rows.size() - static_cast<std::size_t>(claimed)) +
                              " of the picked rows were claimed by another sender meanwhile");
  }
  return rows;
}

// Moves the site's due, unclaimed rows of this priority to the next hour
// and counts them in svc_mail_quota.deferred.
void defer_to_next_hour(Database& db, int priority, long long site_id) {
  const int moved = db.execute(std::string("UPDATE svc_notification_log SET next_attempt_at = DATE_ADD(") + kHourStart +
                                   ", INTERVAL 1 HOUR) WHERE status = 'Pending' AND priority = ? AND site_id = ?"
                                   " AND next_attempt_at <= NOW() AND (claimed_until IS NULL OR claimed_until < NOW())",
                               [&](Params& p) { p.integer(priority).integer(site_id); });
  if (moved == 0) return;
  db.execute(
      std::string("UPDATE svc_mail_quota SET deferred = deferred + ? WHERE site_id = ? AND hour_start = ") + kHourStart,
      [&](Params& p) { p.integer(moved).integer(site_id); });
}

void count_claimed(Database& db, long long site_id, long long n) {
  db.execute(
      std::string("UPDATE svc_mail_quota SET claimed = claimed + ? WHERE site_id = ? AND hour_start = ") + kHourStart,
      [&](Params& p) { p.integer(n).integer(site_id); });
}

// Round-robin shares of `room` rows between `sites` (see the file comment).
void share_rows(Database& db, int priority, std::vector<DueSite>& sites, long long room, int lease_seconds,
                const std::string& claimer) {
  const bool capped = priority > 0;
  for (;;) {
    std::vector<DueSite*> open;
    for (auto& s : sites) {
      if (!s.exhausted && !(capped && s.per_hour && s.allowance <= 0)) open.push_back(&s);
    }
    if (open.empty() || room <= 0) return;
    const long long share = std::max(1LL, room / static_cast<long long>(open.size()));
    for (DueSite* s : open) {
      long long want = std::min(share, room);
      if (capped && s->per_hour) want = std::min(want, s->allowance);
      if (want <= 0) break;
      auto rows = take_rows(db, priority, s->site_id, want, lease_seconds, claimer);
      s->exhausted = static_cast<long long>(rows.size()) < want;
      s->allowance -= static_cast<long long>(rows.size());
      room -= static_cast<long long>(rows.size());
      for (auto& r : rows) s->taken.push_back(std::move(r));
    }
  }
}

// One priority's part of the batch, sites interleaved (one row of each in
// turn), appended to `out`.
void claim_priority(Database& db, int priority, int limit, int lease_seconds, const std::string& claimer,
                    std::vector<OutboxMessage>& out) {
  auto sites = due_sites(db, priority, limit);
  if (sites.empty()) return;
  std::vector<DueSite*> by_id;
  for (auto& s : sites) by_id.push_back(&s);
  std::sort(by_id.begin(), by_id.end(), [](auto* a, auto* b) { return a->site_id < b->site_id; });
  for (DueSite* s : by_id) {  // site id order: within one priority two senders never wait in a cycle
    if (s->per_hour) s->allowance = lock_allowance(db, s->site_id, *s->per_hour);
  }
  share_rows(db, priority, sites, limit - static_cast<long long>(out.size()), lease_seconds, claimer);
  for (DueSite* s : by_id) {
    if (!s->per_hour) continue;
    if (!s->taken.empty()) count_claimed(db, s->site_id, static_cast<long long>(s->taken.size()));
    if (priority > 0 && s->allowance <= 0) defer_to_next_hour(db, priority, s->site_id);
  }
  for (std::size_t i = 0;; ++i) {
    bool any = false;
    for (auto& s : sites) {
      if (i < s.taken.size()) {
        out.push_back(std::move(s.taken[i]));
        any = true;
      }
    }
    if (!any) break;
  }
}

// The bounce-rate guard: the due bulk rows of every site over the rate move
// 10 minutes on, so they neither go out nor crowd the due sites of the
// claim; the guard looks again then. Normal and account mail is not held.
void hold_bounced_bulk(Database& db, int percent, int min_mails) {
  for (const auto& site : SuppressionRepo(db).over_bounce_rate(percent, min_mails)) {
    db.execute(
        "UPDATE svc_notification_log SET next_attempt_at = NOW() + INTERVAL 10 MINUTE"
        " WHERE status = 'Pending' AND priority = ? AND site_id = ? AND next_attempt_at <= NOW()"
        " AND (claimed_until IS NULL OR claimed_until < NOW())",
        [&](Params& p) { p.integer(kPriorities - 1).integer(site.site_id); });
  }
}

}  // namespace

std::vector<OutboxMessage> OutboxRepo::claim(int limit, int lease_seconds, const std::string& claimer) {
  return with_transaction_retry(db_, [&] {
    // READ COMMITTED: the locking reads then keep locks only on the rows they
    // return, so concurrent claims skip just those rows and nothing else.
    // (SET TRANSACTION applies to the next transaction: it comes first.)
    db_.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", kNoParams);
    Transaction tx(db_);
    std::vector<OutboxMessage> out;
    for (int priority = 0; priority < kPriorities && static_cast<int>(out.size()) < limit; ++priority) {
      if (priority == kPriorities - 1 && guard_percent_ > 0) hold_bounced_bulk(db_, guard_percent_, guard_min_mails_);
      claim_priority(db_, priority, limit, lease_seconds, claimer, out);
    }
    tx.commit();
    return out;
  });
}

}  // namespace svc::db
