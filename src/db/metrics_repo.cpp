#include "db/metrics_repo.hpp"

#include <algorithm>
#include <array>

#include "db/suppression_repo.hpp"

namespace svc::db {

void MetricsRepo::read_gauges(int64_t (&out)[static_cast<int>(metrics::DbGauge::kCount)], int guard_percent,
                              int guard_min_mails, int webhook_failing_after) {
  // One round trip per refresh. The session time zone is UTC (database.cpp),
  // so NOW() and UNIX_TIMESTAMP() agree with the DATETIME columns. The
  // Pending figures read the `status` prefix of an outbox index; the legacy
  // count scans svc_users, which is why /metrics caches these values.
  constexpr int kColumns = static_cast<int>(metrics::DbGauge::kCount);
  auto row = db_.one(
      "SELECT"
      " (SELECT COUNT(*) FROM svc_notification_log WHERE status = 'Pending'),"
      " (SELECT COALESCE(TIMESTAMPDIFF(SECOND, MIN(created_at), NOW()), 0)"
      "    FROM svc_notification_log WHERE status = 'Pending'),"
      " (SELECT COUNT(*) FROM svc_notification_log WHERE status = 'Failed'),"
      " (SELECT COUNT(*) FROM svc_users"
      "    WHERE password IS NOT NULL AND password <> '' AND password NOT LIKE '$argon2id$%'),"
      " COALESCE(UNIX_TIMESTAMP(s.last_run_at), 0), COALESCE(UNIX_TIMESTAMP(s.last_success_at), 0),"
      " s.last_sent, s.last_deferred, s.last_failed, s.last_duration_ms,"
      " s.runs, s.sent_total, s.deferred_total, s.failed_total,"
      " (SELECT COUNT(*) FROM svc_mail_suppressions WHERE reason = 'bounce'),"
      " (SELECT COUNT(*) FROM svc_mail_suppressions WHERE reason = 'complaint'),"
      " (SELECT COUNT(*) FROM svc_mail_suppressions WHERE reason = 'unsubscribe'),"
      " (SELECT COUNT(*) FROM svc_mail_suppressions WHERE reason = 'manual'),"
      " IF(? > 0, (SELECT COUNT(*) FROM (" +
          std::string(kSitesOverBounceRate) +
          ") AS g), 0),"
          " (SELECT COUNT(*) FROM svc_webhook_deliveries WHERE status = 'pending'),"
          " (SELECT COUNT(*) FROM svc_webhook_deliveries WHERE status = 'delivered'),"
          " (SELECT COUNT(*) FROM svc_webhook_deliveries WHERE status = 'failed'),"
          " (SELECT COUNT(*) FROM svc_webhook_deliveries WHERE status = 'dropped'),"
          " (SELECT COUNT(*) FROM svc_webhook_endpoints WHERE enabled = 1),"
          " (SELECT COUNT(*) FROM svc_webhook_endpoints WHERE enabled = 0),"
          " (SELECT COUNT(*) FROM svc_webhook_endpoints WHERE enabled = 1 AND failures >= ?)"
          " FROM (SELECT 1 AS one) AS one LEFT JOIN svc_sender_status s ON s.id = 1",
      [&](Params& p) {
        p.integer(guard_percent).integer(guard_min_mails).integer(guard_percent).integer(webhook_failing_after);
      },
      [](RowReader& r) {
        std::array<int64_t, kColumns> v{};
        for (auto& x : v) x = r.integer();
        return v;
      });
  for (int i = 0; i < kColumns; ++i) out[i] = row ? std::max<int64_t>(0, (*row)[static_cast<size_t>(i)]) : 0;
}

void MetricsRepo::record_sender_run(const SenderRun& run) {
  db_.execute(
      "INSERT INTO svc_sender_status (id, last_run_at, last_success_at, last_sent, last_deferred, last_failed,"
      " last_duration_ms, runs, sent_total, deferred_total, failed_total)"
      " VALUES (1, NOW(), IF(?, NOW(), NULL), ?, ?, ?, ?, 1, ?, ?, ?)"
      " ON DUPLICATE KEY UPDATE last_run_at = VALUES(last_run_at),"
      "  last_success_at = COALESCE(VALUES(last_success_at), last_success_at),"
      "  last_sent = VALUES(last_sent), last_deferred = VALUES(last_deferred), last_failed = VALUES(last_failed),"
      "  last_duration_ms = VALUES(last_duration_ms), runs = runs + 1, sent_total = sent_total + VALUES(sent_total),"
      "  deferred_total = deferred_total + VALUES(deferred_total), failed_total = failed_total + VALUES(failed_total)",
      [&](Params& p) {
        p.flag(run.success).integer(run.sent).integer(run.deferred).integer(run.failed);
        p.integer(static_cast<long long>(run.duration_ms)).integer(run.sent).integer(run.deferred).integer(run.failed);
      });
}

}  // namespace svc::db
