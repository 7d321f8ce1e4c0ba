#pragma once
// Counters and gauges shared by every process of one svc-fcgi master.
//
// The master calls map_shared_block() once, before it forks any worker: the
// block is an anonymous MAP_SHARED mapping, so every worker (and every worker
// that replaces a recycled one) writes to the same memory, and the figures
// live exactly as long as the master (a restart resets them; a SIGHUP reload
// does not). Every field is a lock-free std::atomic on a fixed slot: the
// recording functions take no lock, allocate nothing and make no system
// call, so they are safe on the request path and async-signal-safe.
//
// In a process that never mapped the block (svc-admin, svc-sender, unit
// tests that do not call map_shared_block) every recording function is a
// no-op and snapshot() returns nullptr.

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace svc::metrics {

inline constexpr int kMaxRoutes = 192;  // route-table rows, by index; the last slot is "any other path"
inline constexpr int kOtherRoute = kMaxRoutes - 1;
inline constexpr int kMinStatus = 100;
inline constexpr int kStatusSlots = 500;  // 100..599
inline constexpr int kPools = 3;          // 0 = main, 1 = hashing, 2 = outbound
inline constexpr int kMaxWorkerSlots = 256;

// Upper bounds (seconds) of the histogram buckets, latency and worker wait
// alike; +Inf is implied.
inline constexpr double kBuckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
inline constexpr int kBucketCount = static_cast<int>(sizeof kBuckets / sizeof kBuckets[0]);

// Plain event counters.
enum class Counter : int {
  kLoginFailed,         // /auth/login answered 401
  kLoginThrottled,      // /auth/login answered 429 (the failed-login lock)
  kDbReconnects,        // a Database connected again after having had a connection
  kDbConnectFailures,   // a connection attempt failed (DbUnavailable thrown)
  kPeerRefused,         // a FastCGI TCP connection from outside [server] allowed_peers, closed unread
  kDbNodeSkipped,       // a database node was unreachable or not Synced/Primary on connect
  kDbTxnRetries,        // a write transaction re-run after a deadlock / certification failure
  kSessionsOpened,      // a sign-in opened a server-side session
  kSessionRefreshes,    // /auth/refresh-token gave a pair (a rotation, or the previous token within the grace)
  kSessionReuses,       // an old refresh token came back: its session was revoked
  kSessionRevocations,  // sessions ended (sign-out, reuse, security events, operator)
  kCount
};

// The figures read from the database, cached for every worker at once.
enum class DbGauge : int {
  kOutboxPending,
  kOutboxOldestPendingAge,  // seconds; 0 with nothing Pending
  kOutboxFailed,
  kLegacyHashUsers,    // svc_users rows whose hash is not Argon2id
  kSenderLastRunTime,  // unix seconds of the end of the sender's last run; 0 = never
  kSenderLastSuccessTime,
  kSenderLastSent,
  kSenderLastDeferred,
  kSenderLastFailed,
  kSenderLastDurationMs,
  kSenderRuns,  // cumulative since the table was created
  kSenderSentTotal,
  kSenderDeferredTotal,
  kSenderFailedTotal,
  kSuppressedBounce,  // svc_mail_suppressions rows by reason (migration 013)
  kSuppressedComplaint,
  kSuppressedUnsubscribe,
  kSuppressedManual,
  kBounceGuardSites,  // sites whose bulk mail the bounce-rate guard holds now
  kWebhookPending,    // svc_webhook_deliveries rows by status (migration 022)
  kWebhookDelivered,
  kWebhookFailed,
  kWebhookDropped,
  kWebhookEndpointsEnabled,   // svc_webhook_endpoints by state; failing = enabled and
  kWebhookEndpointsDisabled,  // [webhooks] failing_after failures since the last success
  kWebhookEndpointsFailing,
  kCount
};

struct Histogram {
  std::atomic<uint64_t> buckets[kBucketCount + 1];  // per bucket, not cumulative; last = above the largest bound
  std::atomic<uint64_t> sum_us;
};

struct WorkerSlot {
  std::atomic<int> pid;  // 0 = free
  std::atomic<int> pool;
  std::atomic<int> busy;               // 1 while a request is being served
  std::atomic<int64_t> busy_since_ms;  // CLOCK_MONOTONIC ms the current request began; 0 = idle
};

struct DbGaugeCache {
  std::atomic<int64_t> values[static_cast<int>(DbGauge::kCount)];
  std::atomic<int64_t> refreshed_ms;  // CLOCK_MONOTONIC ms of the last attempt; 0 = never
  std::atomic<int64_t> claimed_ms;    // a worker is querying since then; 0 = nobody
  std::atomic<int> ok;                // 1 when the last attempt read the database
};

struct SharedBlock {
  int64_t master_start_unix;
  std::atomic<uint64_t> requests[kMaxRoutes][kStatusSlots];
  Histogram latency[kMaxRoutes];
  Histogram worker_wait[kPools];
  std::atomic<uint64_t> counters[static_cast<int>(Counter::kCount)];
  WorkerSlot workers[kMaxWorkerSlots];
  DbGaugeCache db;
  // How many workers of the outbound pool, by rank, take connections now
  // (fcgi/master.cpp sizes it by demand); a futex word the others sleep on.
  std::atomic<int> outbound_active;
};

// Maps and zeroes the block. Call once in the master before the first fork;
// a second call is a no-op. Throws std::runtime_error when mmap fails.
void map_shared_block();

// The block, or nullptr when this process has none.
SharedBlock* snapshot();

// --- master side (REQUIRES: map_shared_block() was called) ---
// A free worker slot for `pool`, marked used by `pid`; -1 when all are taken
// (the worker then simply is not counted in the busy/idle gauges).
int claim_worker_slot(int pool);
void assign_worker_slot(int slot, int pid);
void release_worker_slot(int slot);
// Workers of `pool` serving one request since at least `since_ms` (CLOCK_MONOTONIC).
int workers_busy_since(int pool, int64_t since_ms);
// Sets how many outbound workers take connections, waking those asleep in
// wait_outbound_active when it changes.
void set_outbound_active(int active);

// --- worker side: all no-ops without a block ---
// Called in the child right after fork: which slot and pool it is.
void attach_worker(int slot, int pool);
// The slot attach_worker gave this process; -1 in the master, in a worker
// that got none, and in other programs.
int worker_slot();
void set_busy(bool busy);
// The outbound pool's active count (set_outbound_active); a large number
// without a block, so a worker without one never waits for it.
int outbound_active();
// Sleeps until the active count differs from `seen`, at most one second,
// with `idle_mask` as the signal mask meanwhile (a stop request ends it).
void wait_outbound_active(int seen, const sigset_t& idle_mask);
// The time a request waited between nginx handing it on and this worker
// taking it (see docs/operations.md: svc_worker_wait_seconds).
void record_worker_wait(double seconds);
// One answered request: `route` is its row in the route table (kOtherRoute
// for none; out of range counts as kOtherRoute), status its HTTP status (one
// outside 100..599 is not counted), seconds the time spent producing the reply.
void record_request(int route, int status, double seconds);
void count(Counter c);

// --- the database gauges, refreshed by at most one worker per interval ---
// True when the caller should query the database now: the cached values are
// older than interval_ms and no other worker is querying (a claim older than
// 30 s counts as abandoned). A true answer must be followed by publish_db().
bool claim_db_refresh(int64_t now_ms, int64_t interval_ms);
// Stores fresh values (ok) or records a failed attempt (values untouched),
// and ends the claim.
void publish_db(const int64_t (&values)[static_cast<int>(DbGauge::kCount)], bool ok, int64_t now_ms);

// CLOCK_MONOTONIC in milliseconds (the time base of the cache above).
int64_t monotonic_ms();

}  // namespace svc::metrics
