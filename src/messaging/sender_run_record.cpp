#include "messaging/sender_run_record.hpp"

#include "core/log.hpp"
#include "db/metrics_repo.hpp"

namespace svc::messaging {

RunRecord::~RunRecord() {
  if (!written_) write(BatchCounts{}, false);
}

void RunRecord::finish(const BatchCounts& totals) {
  if (totals.relay_trouble) {
    // The relay refused or did not answer several messages in a row; the
    // rows stay Pending for the next run (docs/operations.md).
    core::LogLine("error", "smtp_relay_unavailable")
        .num("sent", totals.sent)
        .num("deferred", totals.retry + totals.released)
        .emit();
  }
  write(totals, true);
}

void RunRecord::write(const BatchCounts& totals, bool completed) {
  written_ = true;
  db::MetricsRepo::SenderRun run;
  run.sent = totals.sent;
  run.deferred = totals.retry + totals.released;  // both wait for a later run
  run.failed = totals.failed;
  run.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_).count();
  run.success = completed && !totals.relay_trouble;
  try {
    db::MetricsRepo(db_).record_sender_run(run);
  } catch (const std::exception& e) {
    core::LogLine("warn", "sender_status_write_failed").str("error", e.what()).emit();
  }
}

}  // namespace svc::messaging
