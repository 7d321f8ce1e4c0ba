#include "db/outbox_repo.hpp"

#include <utility>

namespace svc::db {
namespace {

constexpr const char* kMessageColumns =
    "id, site_id, event, recipient, cc, bcc, `from`, subject, body, attempts,"
    " UNIX_TIMESTAMP(created_at) AS created_unix";

// "Due" as the sender means it; the index (status, next_attempt_at) serves it.
constexpr const char* kDueCondition =
    " WHERE status = 'Pending' AND next_attempt_at <= NOW()"
    " AND (claimed_until IS NULL OR claimed_until < NOW())";

// On the Sent/Failed transition the body's tokens are replaced: a delivered
// reset link must not stay usable to whoever reads the log (operators,
// backups, the SQL-merge account). Every JWT (a token always starts with the
// base64url of `{"`) is one run of this pattern; sql/004 applies the same one
// to rows finished before it. The mail itself is already sent with the token.
constexpr const char* kRedactBody =
    " body = REGEXP_REPLACE(body, 'eyJ[A-Za-z0-9_-]+[.][A-Za-z0-9_-]+[.][A-Za-z0-9_-]+', '[redacted]'),";

constexpr const char* kListingColumns =
    "id, site_id, event, status, attempts, recipient, created_at, next_attempt_at, sent_at, claimed_until,"
    " claimed_by, last_error";

// In the order of kMessageColumns.
OutboxMessage read_message(RowReader& r) {
  OutboxMessage m;
  m.id = r.integer();
  m.site_id = r.integer();
  m.event = r.text();
  m.recipient = r.text();
  m.cc = r.text();
  m.bcc = r.text();
  m.from = r.text();
  m.subject = r.text();
  m.body = r.text();
  m.attempts = static_cast<int>(r.integer());
  m.created_unix = r.integer();
  return m;
}

// In the order of kListingColumns.
OutboxListing read_listing(RowReader& r) {
  OutboxListing l;
  l.id = r.integer();
  l.site_id = r.integer();
  l.event = r.text();
  l.status = r.text();
  l.attempts = static_cast<int>(r.integer());
  l.recipient = r.text();
  l.created_at = r.text();
  l.next_attempt_at = r.text();
  l.sent_at = r.text();
  l.claimed_until = r.text();
  l.claimed_by = r.text();
  l.last_error = r.text();
  return l;
}

// last_error is VARCHAR(1024) under a strict sql_mode: keep it short and
// ASCII, since SMTP replies come from a server we do not control.
std::string error_column(const std::string& error) {
  std::string out;
  for (char c : error) {
    if (out.size() >= 1000) break;
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u < 0x20 || u >= 0x7f ? '?' : c);
  }
  return out;
}

// Runs one outcome write on a claimed row. `sql` is an UPDATE whose WHERE
// ends in "id = ? AND status = 'Pending' AND claimed_by = ?"; set_values
// binds the placeholders before it, and the id and claimer follow. True when
// the row was still Pending and held by `claimer` (the OutboxQueue contract).
template <class SetValues>
bool update_claimed(Database& db, const std::string& sql, long long id, const std::string& claimer,
                    SetValues set_values) {
  return db.execute(sql, [&](Params& p) {
    set_values(p);
    p.integer(id).text(claimer);
  }) == 1;
}

}  // namespace

std::vector<OutboxMessage> OutboxRepo::claim(int limit, int lease_seconds, const std::string& claimer) {
  // READ COMMITTED: the locking read then keeps locks only on the rows it
  // returns, so concurrent claims skip just those rows and nothing else.
  // (SET TRANSACTION applies to the next transaction: it comes first.)
  db_.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", kNoParams);
  Transaction tx(db_);
  auto rows = db_.rows(
      std::string("SELECT ") + kMessageColumns + " FROM svc_notification_log" + kDueCondition +
          " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED",
      [&](Params& p) { p.integer(limit); }, read_message);
  for (const auto& row : rows) {
    db_.execute(
        "UPDATE svc_notification_log SET claimed_until = DATE_ADD(NOW(), INTERVAL ? SECOND), claimed_by = ?"
        " WHERE id = ?",
        [&](Params& p) { p.integer(lease_seconds).text(claimer).integer(row.id); });
  }
  tx.commit();
  return rows;
}

std::vector<OutboxMessage> OutboxRepo::due(int limit) {
  return db_.rows(
      std::string("SELECT ") + kMessageColumns + " FROM svc_notification_log" + kDueCondition + " ORDER BY id LIMIT ?",
      [&](Params& p) { p.integer(limit); }, read_message);
}

bool OutboxRepo::mark_sent(long long id, const std::string& claimer) {
  return update_claimed(db_,
                        std::string("UPDATE svc_notification_log SET") + kRedactBody +
                            " status = 'Sent', sent_at = NOW(), claimed_until = NULL, claimed_by = NULL"
                            " WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
                        id, claimer, kNoParams);
}

bool OutboxRepo::mark_retry(long long id, const std::string& claimer, long long delay_seconds,
                            const std::string& error) {
  return update_claimed(
      db_,
      "UPDATE svc_notification_log SET attempts = attempts + 1,"
      " next_attempt_at = DATE_ADD(NOW(), INTERVAL ? SECOND), claimed_until = NULL, claimed_by = NULL,"
      " last_error = ? WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
      id, claimer, [&](Params& p) { p.integer(delay_seconds).text(error_column(error)); });
}

bool OutboxRepo::mark_failed(long long id, const std::string& claimer, const std::string& error) {
  return update_claimed(db_,
                        std::string("UPDATE svc_notification_log SET") + kRedactBody +
                            " status = 'Failed', attempts = attempts + 1, claimed_until = NULL,"
                            " claimed_by = NULL, last_error = ? WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
                        id, claimer, [&](Params& p) { p.text(error_column(error)); });
}

bool OutboxRepo::release(long long id, const std::string& claimer) {
  return update_claimed(db_,
                        "UPDATE svc_notification_log SET claimed_until = NULL, claimed_by = NULL"
                        " WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
                        id, claimer, kNoParams);
}

OutboxStats OutboxRepo::stats() {
  OutboxStats s;
  const auto counts =
      db_.rows("SELECT status, COUNT(*) AS n FROM svc_notification_log GROUP BY status", kNoParams, [](RowReader& r) {
        std::string status = r.text();
        return std::pair(std::move(status), r.integer());
      });
  for (const auto& [status, n] : counts) {
    if (status == "Pending") s.pending = n;
    if (status == "Sent") s.sent = n;
    if (status == "Failed") s.failed = n;
  }
  const auto pending = db_.one(
      "SELECT"
      " COALESCE(SUM(next_attempt_at <= NOW() AND (claimed_until IS NULL OR claimed_until < NOW())), 0) AS due,"
      " COALESCE(SUM(claimed_until >= NOW()), 0) AS claimed,"
      " COALESCE(TIMESTAMPDIFF(SECOND, MIN(created_at), NOW()), -1) AS oldest"
      " FROM svc_notification_log WHERE status = 'Pending'",
      kNoParams, [](RowReader& r) {
        OutboxStats p;
        p.pending_due = r.integer();
        p.pending_claimed = r.integer();
        p.oldest_pending_age = r.integer();
        return p;
      });
  if (pending) {
    s.pending_due = pending->pending_due;
    s.pending_claimed = pending->pending_claimed;
    s.oldest_pending_age = pending->oldest_pending_age;
  }
  return s;
}

std::vector<OutboxListing> OutboxRepo::list(const std::string& status, long long site_id, int limit) {
  return db_.rows(
      std::string("SELECT ") + kListingColumns +
          " FROM svc_notification_log WHERE status = ? AND (? = 0 OR site_id = ?) ORDER BY id DESC LIMIT ?",
      [&](Params& p) { p.text(status).integer(site_id).integer(site_id).integer(limit); }, read_listing);
}

std::optional<OutboxListing> OutboxRepo::find(long long id) {
  return db_.one(
      std::string("SELECT ") + kListingColumns + " FROM svc_notification_log WHERE id = ?",
      [&](Params& p) { p.integer(id); }, read_listing);
}

bool OutboxRepo::requeue_failed(long long id) {
  return db_.execute(
             "UPDATE svc_notification_log SET status = 'Pending', attempts = 0, next_attempt_at = NOW(),"
             " claimed_until = NULL, claimed_by = NULL WHERE id = ? AND status = 'Failed'",
             [&](Params& p) { p.integer(id); }) == 1;
}

}  // namespace svc::db
