#pragma once
// Retention: deleting old rows of the notification outbox
// (svc_notification_log), the audit log (svc_audit_log) and the bounce notes
// (svc_mail_bounces) in small batches.
//
// Each call is one DELETE of at most `limit` rows, in its own autocommit
// transaction, at READ COMMITTED: InnoDB then locks only the rows it deletes
// (no gap locks), so the sender's claims (FOR UPDATE SKIP LOCKED on Pending
// rows), its outcome writes and the API's inserts never wait for a purge
// longer than one batch, and normally not at all. Age is measured from
// created_at on the database clock (UTC session). Indexes from migration 007
// (status, created_at) and (created_at), and 016 (created_at on the bounce
// notes), keep each batch an index range scan.

#include <string>

#include "db/database.hpp"

namespace svc::db {

// The tables whose rows go by age alone: the audit log, and the bounce and
// complaint notes of `mail ingest` and svc-sender (svc_mail_bounces; the
// bounce-rate guard reads only the last hour of them).
// kSessions: sessions that ended (expired or revoked) that long ago.
// The OpenID Connect provider's (issue 39): authorization requests and codes
// expired that long ago, single sign-on cookies and grants whose session
// ended that long ago (or is gone).
// kAdminAudit: the site administrators' audit (svc_admin_audit, sql/036).
enum class AgedTable {
  kAudit,
  kAdminAudit,
  kMailBounces,
  kSessions,
  kOAuthRequests,
  kOAuthCodes,
  kOAuthSso,
  kOAuthGrants
};

class RetentionRepo {
 public:
  // Switches this connection to READ COMMITTED for the rest of its session.
  // REQUIRES: no transaction open; one connection used only for purging.
  explicit RetentionRepo(Database& db);

  // Deletes up to `limit` outbox rows with this status (Pending | Sent |
  // Failed) created more than `older_than_seconds` ago; returns how many.
  int purge_outbox_batch(const std::string& status, long long older_than_seconds, int limit);
  // How many rows purge_outbox_batch would eventually delete (for --dry-run).
  long long count_outbox(const std::string& status, long long older_than_seconds);

  // Deletes up to `limit` rows of `table` created more than
  // `older_than_seconds` ago; returns how many.
  int purge_aged_batch(AgedTable table, long long older_than_seconds, int limit);
  long long count_aged(AgedTable table, long long older_than_seconds);

 private:
  Database& db_;
};

}  // namespace svc::db
