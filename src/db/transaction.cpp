#include "db/transaction.hpp"

#include <chrono>
#include <random>
#include <thread>

#include "core/log.hpp"
#include "metrics/metrics.hpp"

namespace svc::db {

// Two writers that lost to each other once tend to meet again (two senders
// both claim the oldest due rows): a random pause of up to 10 ms per attempt
// so far lets one of them go first.
void note_transaction_retry(int attempt, const std::exception& e) {
  metrics::count(metrics::Counter::kDbTxnRetries);
  core::LogLine("warn", "db_transaction_retry").num("attempt", attempt).str("error", e.what()).emit();
  thread_local std::minstd_rand jitter(std::random_device{}());
  std::uniform_int_distribution<int> pause_us(0, 10000 * attempt);
  std::this_thread::sleep_for(std::chrono::microseconds(pause_us(jitter)));
}

}  // namespace svc::db
