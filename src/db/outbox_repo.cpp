#include "db/outbox_repo.hpp"

#include <tuple>
#include <utility>

#include "db/outbox_rows.hpp"
#include "db/suppression_repo.hpp"
#include "db/transaction.hpp"
#include "db/webhook_repo.hpp"

namespace svc::db {
namespace {

// "Due" as the sender means it; the Pending rows come from the `status`
// prefix of ix_svc_log_claim or ix_svc_log_status_created (sql/015).
constexpr const char* kDueCondition =
    " WHERE status = 'Pending' AND next_attempt_at <= NOW()"
    " AND (claimed_until IS NULL OR claimed_until < NOW())";

// On the Sent/Failed transition the body's secrets are replaced: a
// delivered reset link must not stay usable to whoever reads the log
// (operators, backups, the SQL-merge account). Every JWT (a token always
// starts with the base64url of `{"`) is one run of this pattern; sql/004
// applies the same one to rows finished before it. An `email-code` row
// holds no token (its fields are email, names, code, minutes) but a
// six-digit sign-in code, in the body and perhaps in a site's own subject:
// there every run of six or more digits goes. The mail itself is already
// sent with the token or code.
const std::string kRedactedBody =
    "IF(event = 'email-code', REGEXP_REPLACE(body, '[0-9]{6,}', '[redacted]'),"
    " REGEXP_REPLACE(body, 'eyJ[A-Za-z0-9_-]+[.][A-Za-z0-9_-]+[.][A-Za-z0-9_-]+', '[redacted]'))";
const std::string kRedactedSubject =
    "IF(event = 'email-code', REGEXP_REPLACE(subject, '[0-9]{6,}', '[redacted]'), subject)";
const std::string kRedactBody = " body = " + kRedactedBody + ", subject = " + kRedactedSubject + ",";

const std::string kListingColumns =
    "id, site_id, event, status, attempts, recipient, created_at, next_attempt_at, sent_at, claimed_until,"
    " claimed_by, last_error, " +
    kRedactedSubject;

// In the order of kListingColumns.
constexpr auto read_listing =
    read_fields<OutboxListing, &OutboxListing::id, &OutboxListing::site_id, &OutboxListing::event,
                &OutboxListing::status, &OutboxListing::attempts, &OutboxListing::recipient, &OutboxListing::created_at,
                &OutboxListing::next_attempt_at, &OutboxListing::sent_at, &OutboxListing::claimed_until,
                &OutboxListing::claimed_by, &OutboxListing::last_error, &OutboxListing::subject>;

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

// Runs the outcome's UPDATE and, when it took, queues the message's webhook
// event (message.sent / message.failed) in the same transaction.
template <class Change>
bool with_message_event(Database& db, long long id, const char* type, Change change) {
  return with_transaction_retry(db, [&] {
    Transaction tx(db);
    if (!change()) return false;
    WebhookRepo(db).enqueue_message(id, type);
    tx.commit();
    return true;
  });
}

}  // namespace

std::vector<OutboxMessage> OutboxRepo::due(int limit) {
  return db_.rows(
      std::string("SELECT ") + kMessageColumns + " FROM svc_notification_log" + kDueCondition +
          " ORDER BY priority, id LIMIT ?",
      [&](Params& p) { p.integer(limit); }, read_message);
}

bool OutboxRepo::mark_sent(long long id, const std::string& claimer) {
  return with_message_event(db_, id, "message.sent", [&] {
    return update_claimed(db_,
                          "UPDATE svc_notification_log SET" + kRedactBody +
                              " status = 'Sent', sent_at = NOW(), claimed_until = NULL, claimed_by = NULL"
                              " WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
                          id, claimer, kNoParams);
  });
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
  return with_message_event(db_, id, "message.failed", [&] {
    return update_claimed(
        db_,
        "UPDATE svc_notification_log SET" + kRedactBody +
            " status = 'Failed', attempts = attempts + 1, claimed_until = NULL,"
            " claimed_by = NULL, last_error = ? WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
        id, claimer, [&](Params& p) { p.text(error_column(error)); });
  });
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
        r.read(p.pending_due, p.pending_claimed, p.oldest_pending_age);
        return p;
      });
  if (pending) {
    s.pending_due = pending->pending_due;
    s.pending_claimed = pending->pending_claimed;
    s.oldest_pending_age = pending->oldest_pending_age;
  }
  add_quota_stats(s);
  return s;
}

void OutboxRepo::add_quota_stats(OutboxStats& s) {
  const auto by_priority = db_.one(
      "SELECT COALESCE(SUM(priority = 0), 0), COALESCE(SUM(priority = 2), 0) FROM svc_notification_log"
      " WHERE status = 'Pending'",
      kNoParams, [](RowReader& r) { return std::pair(r.integer(), r.integer()); });
  if (by_priority) std::tie(s.pending_high, s.pending_bulk) = *by_priority;
  const auto deferred = db_.one(
      "SELECT COALESCE(SUM(IF(hour_start = DATE_FORMAT(NOW(), '%Y-%m-%d %H:00:00'), deferred, 0)), 0),"
      " COALESCE(SUM(deferred), 0) FROM svc_mail_quota WHERE hour_start > NOW() - INTERVAL 24 HOUR",
      kNoParams, [](RowReader& r) { return std::pair(r.integer(), r.integer()); });
  if (deferred) std::tie(s.quota_deferred_hour, s.quota_deferred_day) = *deferred;
  s.guard_deferred_sites =
      static_cast<long long>(SuppressionRepo(db_).over_bounce_rate(guard_percent_, guard_min_mails_).size());
}

std::vector<OutboxListing> OutboxRepo::list(const std::string& status, long long site_id, int limit) {
  return db_.rows(
      "SELECT " + kListingColumns +
          " FROM svc_notification_log WHERE status = ? AND (? = 0 OR site_id = ?) ORDER BY id DESC LIMIT ?",
      [&](Params& p) { p.text(status).integer(site_id).integer(site_id).integer(limit); }, read_listing);
}

std::optional<OutboxListing> OutboxRepo::find(long long id) {
  return db_.one(
      "SELECT " + kListingColumns + " FROM svc_notification_log WHERE id = ?", [&](Params& p) { p.integer(id); },
      read_listing);
}

std::optional<OutboxMessage> OutboxRepo::message(long long id) {
  return db_.one(
      std::string("SELECT ") + kMessageColumns + " FROM svc_notification_log WHERE id = ?",
      [&](Params& p) { p.integer(id); }, read_message);
}

namespace {

// The index whose prefix serves the filters given (sql/038): the most
// selective of them.
const char* log_index(const OutboxFilter& f) {
  if (!f.recipient.empty()) return "ix_svc_log_site_recipient";
  if (!f.event.empty()) return "ix_svc_log_site_event";
  if (!f.status.empty()) return "ix_svc_log_site_status";
  return "ix_svc_log_site";
}

}  // namespace

std::vector<OutboxListing> OutboxRepo::site_page(long long site_id, const OutboxFilter& filter,
                                                 const std::optional<OutboxPosition>& after, int limit) {
  // Fixed fragments only; every value is bound.
  std::string sql = "SELECT " + kListingColumns + " FROM svc_notification_log FORCE INDEX (" + log_index(filter) +
                    ") WHERE site_id = ?";
  if (!filter.status.empty()) sql += " AND status = ?";
  if (!filter.event.empty()) sql += " AND event = ?";
  if (!filter.recipient.empty()) sql += " AND recipient = ?";
  if (!filter.since.empty()) sql += " AND created_at >= ?";
  if (!filter.until.empty()) sql += " AND created_at < ?";
  if (after) sql += " AND (created_at < ? OR (created_at = ? AND id < ?))";
  sql += " ORDER BY created_at DESC, id DESC LIMIT ?";
  return db_.rows(
      sql,
      [&](Params& p) {
        p.integer(site_id);
        for (const std::string* value :
             {&filter.status, &filter.event, &filter.recipient, &filter.since, &filter.until}) {
          if (!value->empty()) p.text(*value);
        }
        if (after) p.text(after->created_at).text(after->created_at).integer(after->id);
        p.integer(limit);
      },
      read_listing);
}

std::optional<OutboxListing> OutboxRepo::find(long long site_id, long long id) {
  return db_.one(
      "SELECT " + kListingColumns + " FROM svc_notification_log WHERE id = ? AND site_id = ?",
      [&](Params& p) { p.integer(id).integer(site_id); }, read_listing);
}

std::optional<OutboxMessage> OutboxRepo::message_shown(long long site_id, long long id) {
  return db_.one(
      "SELECT id, site_id, event, recipient, cc, bcc, `from`, " + kRedactedSubject + ", " + kRedactedBody +
          ", attempts, UNIX_TIMESTAMP(created_at), priority FROM svc_notification_log WHERE id = ? AND site_id = ?",
      [&](Params& p) { p.integer(id).integer(site_id); }, read_message);
}

bool OutboxRepo::requeue_failed(long long site_id, long long id) {
  return db_.execute(
             "UPDATE svc_notification_log SET status = 'Pending', attempts = 0, next_attempt_at = NOW(),"
             " claimed_until = NULL, claimed_by = NULL WHERE id = ? AND site_id = ? AND status = 'Failed'",
             [&](Params& p) { p.integer(id).integer(site_id); }) == 1;
}

}  // namespace svc::db
