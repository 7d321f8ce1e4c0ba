#pragma once

#include <cstdint>

#include "db/database.hpp"
#include "metrics/metrics.hpp"

namespace svc::db {

// The figures GET /metrics reads from the database (outbox, legacy hashes,
// the sender's runs), and where svc-sender records a run. Errors propagate
// as sql::SQLException / DbUnavailable.
class MetricsRepo {
 public:
  explicit MetricsRepo(Database& db) : db_(db) {}

  // Every metrics::DbGauge, in enum order, from one statement. Outbox figures
  // cover svc_notification_log; legacy hashes count svc_users only.
  // The bounce-rate guard's gauge counts the sites over guard_percent % of
  // at least guard_min_mails mails ([smtp] max_bounce_rate; 0 = off).
  // Failing webhook endpoints: enabled, with webhook_failing_after failures
  // in a row ([webhooks] failing_after).
  void read_gauges(int64_t (&out)[static_cast<int>(metrics::DbGauge::kCount)], int guard_percent = 0,
                   int guard_min_mails = 100, int webhook_failing_after = 5);

  struct SenderRun {
    int sent = 0, deferred = 0, failed = 0;
    int64_t duration_ms = 0;
    bool success = false;  // ended without error and without relay trouble
  };
  // Adds one finished run to svc_sender_status (migration 006).
  void record_sender_run(const SenderRun& run);

 private:
  Database& db_;
};

}  // namespace svc::db
