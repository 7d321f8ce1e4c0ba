#include "db/outbox_repo.hpp"

namespace svc::db {
namespace {

constexpr const char* kMessageColumns =
    "id, site_id, event, recipient, cc, bcc, `from`, subject, body, attempts,"
    " UNIX_TIMESTAMP(created_at) AS created_unix";

// "Due" as the sender means it; the index (status, next_attempt_at) serves it.
constexpr const char* kDueCondition =
    " WHERE status = 'Pending' AND next_attempt_at <= NOW()"
    " AND (claimed_until IS NULL OR claimed_until < NOW())";

constexpr const char* kListingColumns =
    "id, site_id, event, status, attempts, recipient, created_at, next_attempt_at, sent_at, claimed_until,"
    " claimed_by, last_error";

OutboxMessage read_message(sql::ResultSet& rs) {
  OutboxMessage m;
  m.id = column_int(rs, "id");
  m.site_id = column_int(rs, "site_id");
  m.event = column_string(rs, "event");
  m.recipient = column_string(rs, "recipient");
  m.cc = column_string(rs, "cc");
  m.bcc = column_string(rs, "bcc");
  m.from = column_string(rs, "from");
  m.subject = column_string(rs, "subject");
  m.body = column_string(rs, "body");
  m.attempts = static_cast<int>(column_int(rs, "attempts"));
  m.created_unix = column_int(rs, "created_unix");
  return m;
}

OutboxListing read_listing(sql::ResultSet& rs) {
  OutboxListing l;
  l.id = column_int(rs, "id");
  l.site_id = column_int(rs, "site_id");
  l.event = column_string(rs, "event");
  l.status = column_string(rs, "status");
  l.attempts = static_cast<int>(column_int(rs, "attempts"));
  l.recipient = column_string(rs, "recipient");
  l.created_at = column_string(rs, "created_at");
  l.next_attempt_at = column_string(rs, "next_attempt_at");
  l.sent_at = column_string(rs, "sent_at");
  l.claimed_until = column_string(rs, "claimed_until");
  l.claimed_by = column_string(rs, "claimed_by");
  l.last_error = column_string(rs, "last_error");
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

}  // namespace

std::vector<OutboxMessage> OutboxRepo::claim(int limit, int lease_seconds, const std::string& claimer) {
  // READ COMMITTED: the locking read then keeps locks only on the rows it
  // returns, so concurrent claims skip just those rows and nothing else.
  // (SET TRANSACTION applies to the next transaction: it comes first.)
  db_.with("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", [](sql::PreparedStatement& st) { st.execute(); });
  Transaction tx(db_);
  auto rows = db_.with(std::string("SELECT ") + kMessageColumns + " FROM svc_notification_log" + kDueCondition +
                           " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED",
                       [&](sql::PreparedStatement& st) {
                         st.setInt(1, limit);
                         auto rs = query(st);
                         std::vector<OutboxMessage> out;
                         while (rs->next()) out.push_back(read_message(*rs));
                         return out;
                       });
  for (const auto& row : rows) {
    db_.with(
        "UPDATE svc_notification_log SET claimed_until = DATE_ADD(NOW(), INTERVAL ? SECOND), claimed_by = ?"
        " WHERE id = ?",
        [&](sql::PreparedStatement& st) {
          st.setInt(1, lease_seconds);
          st.setString(2, claimer);
          st.setInt64(3, row.id);
          st.executeUpdate();
        });
  }
  tx.commit();
  return rows;
}

std::vector<OutboxMessage> OutboxRepo::due(int limit) {
  return db_.with(
      std::string("SELECT ") + kMessageColumns + " FROM svc_notification_log" + kDueCondition + " ORDER BY id LIMIT ?",
      [&](sql::PreparedStatement& st) {
        st.setInt(1, limit);
        auto rs = query(st);
        std::vector<OutboxMessage> out;
        while (rs->next()) out.push_back(read_message(*rs));
        return out;
      });
}

bool OutboxRepo::mark_sent(long long id, const std::string& claimer) {
  return db_.with(
      "UPDATE svc_notification_log SET status = 'Sent', sent_at = NOW(), claimed_until = NULL, claimed_by = NULL"
      " WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, id);
        st.setString(2, claimer);
        return st.executeUpdate() == 1;
      });
}

bool OutboxRepo::mark_retry(long long id, const std::string& claimer, long long delay_seconds,
                            const std::string& error) {
  return db_.with(
      "UPDATE svc_notification_log SET attempts = attempts + 1,"
      " next_attempt_at = DATE_ADD(NOW(), INTERVAL ? SECOND), claimed_until = NULL, claimed_by = NULL,"
      " last_error = ? WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, delay_seconds);
        st.setString(2, error_column(error));
        st.setInt64(3, id);
        st.setString(4, claimer);
        return st.executeUpdate() == 1;
      });
}

bool OutboxRepo::mark_failed(long long id, const std::string& claimer, const std::string& error) {
  return db_.with(
      "UPDATE svc_notification_log SET status = 'Failed', attempts = attempts + 1, claimed_until = NULL,"
      " claimed_by = NULL, last_error = ? WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
      [&](sql::PreparedStatement& st) {
        st.setString(1, error_column(error));
        st.setInt64(2, id);
        st.setString(3, claimer);
        return st.executeUpdate() == 1;
      });
}

bool OutboxRepo::release(long long id, const std::string& claimer) {
  return db_.with(
      "UPDATE svc_notification_log SET claimed_until = NULL, claimed_by = NULL"
      " WHERE id = ? AND status = 'Pending' AND claimed_by = ?",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, id);
        st.setString(2, claimer);
        return st.executeUpdate() == 1;
      });
}

OutboxStats OutboxRepo::stats() {
  OutboxStats s;
  db_.with("SELECT status, COUNT(*) AS n FROM svc_notification_log GROUP BY status", [&](sql::PreparedStatement& st) {
    auto rs = query(st);
    while (rs->next()) {
      const std::string status = column_string(*rs, "status");
      const long long n = column_int(*rs, "n");
      if (status == "Pending") s.pending = n;
      if (status == "Sent") s.sent = n;
      if (status == "Failed") s.failed = n;
    }
  });
  db_.with(
      "SELECT"
      " COALESCE(SUM(next_attempt_at <= NOW() AND (claimed_until IS NULL OR claimed_until < NOW())), 0) AS due,"
      " COALESCE(SUM(claimed_until >= NOW()), 0) AS claimed,"
      " COALESCE(TIMESTAMPDIFF(SECOND, MIN(created_at), NOW()), -1) AS oldest"
      " FROM svc_notification_log WHERE status = 'Pending'",
      [&](sql::PreparedStatement& st) {
        auto rs = query(st);
        if (!rs->next()) return;
        s.pending_due = column_int(*rs, "due");
        s.pending_claimed = column_int(*rs, "claimed");
        s.oldest_pending_age = column_int(*rs, "oldest");
      });
  return s;
}

std::vector<OutboxListing> OutboxRepo::list(const std::string& status, long long site_id, int limit) {
  return db_.with(std::string("SELECT ") + kListingColumns +
                      " FROM svc_notification_log WHERE status = ? AND (? = 0 OR site_id = ?) ORDER BY id DESC LIMIT ?",
                  [&](sql::PreparedStatement& st) {
                    st.setString(1, status);
                    st.setInt64(2, site_id);
                    st.setInt64(3, site_id);
                    st.setInt(4, limit);
                    auto rs = query(st);
                    std::vector<OutboxListing> out;
                    while (rs->next()) out.push_back(read_listing(*rs));
                    return out;
                  });
}

std::optional<OutboxListing> OutboxRepo::find(long long id) {
  return db_.with(std::string("SELECT ") + kListingColumns + " FROM svc_notification_log WHERE id = ?",
                  [&](sql::PreparedStatement& st) -> std::optional<OutboxListing> {
                    st.setInt64(1, id);
                    auto rs = query(st);
                    if (!rs->next()) return std::nullopt;
                    return read_listing(*rs);
                  });
}

bool OutboxRepo::requeue_failed(long long id) {
  return db_.with(
      "UPDATE svc_notification_log SET status = 'Pending', attempts = 0, next_attempt_at = NOW(),"
      " claimed_until = NULL, claimed_by = NULL WHERE id = ? AND status = 'Failed'",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, id);
        return st.executeUpdate() == 1;
      });
}

}  // namespace svc::db
