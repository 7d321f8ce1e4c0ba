#pragma once

#include <chrono>

#include "db/database.hpp"
#include "messaging/sender.hpp"

namespace svc::messaging {

// Records one svc-sender run for GET /metrics (svc_sender_* metrics, table
// svc_sender_status of migration 006), and names relay trouble in the log.
// Make one at the start of a run; call finish() with the run's totals when
// it ended normally. A record destroyed without finish() counts as a run
// that failed (an exception ended it): no figures, no success time.
// Never throws: a failed write is logged as sender_status_write_failed.
class RunRecord {
 public:
  explicit RunRecord(db::Database& db) : db_(db), started_(std::chrono::steady_clock::now()) {}
  ~RunRecord();
  RunRecord(const RunRecord&) = delete;
  RunRecord& operator=(const RunRecord&) = delete;

  void finish(const BatchCounts& totals);

 private:
  void write(const BatchCounts& totals, bool completed);

  db::Database& db_;
  std::chrono::steady_clock::time_point started_;
  bool written_ = false;
};

}  // namespace svc::messaging
