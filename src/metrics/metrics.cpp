#include "metrics/metrics.hpp"

#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <new>
#include <stdexcept>
#include <string>

namespace svc::metrics {
namespace {

// Atomics in memory shared between processes are only sound when they are
// lock-free (a lock would live in one process's address space).
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<int64_t>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

SharedBlock* g_block = nullptr;
int g_slot = -1;
int g_pool = 0;

constexpr auto kRelaxed = std::memory_order_relaxed;

int bucket_of(double seconds) {
  int i = 0;
  while (i < kBucketCount && seconds > kBuckets[i]) ++i;
  return i;
}

void observe(Histogram& h, double seconds) {
  if (!(seconds >= 0)) seconds = 0;  // also catches NaN
  if (seconds > 1e7) seconds = 1e7;  // keeps the microsecond sum's cast defined
  h.buckets[bucket_of(seconds)].fetch_add(1, kRelaxed);
  h.sum_us.fetch_add(static_cast<uint64_t>(seconds * 1e6), kRelaxed);
}

}  // namespace

void map_shared_block() {
  if (g_block) return;
  void* p = mmap(nullptr, sizeof(SharedBlock), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(std::string("metrics: mmap: ") + std::strerror(errno));
  // An anonymous mapping is zero-filled, and a zero std::atomic is a valid
  // zero value; placement new makes the objects' lifetime explicit.
  g_block = new (p) SharedBlock{};
  g_block->master_start_unix = static_cast<int64_t>(std::time(nullptr));
}

SharedBlock* snapshot() { return g_block; }

int claim_worker_slot(int pool) {
  if (!g_block) return -1;
  for (int i = 0; i < kMaxWorkerSlots; ++i) {
    WorkerSlot& s = g_block->workers[i];
    if (s.pid.load(kRelaxed) != 0) continue;
    s.pool.store(pool, kRelaxed);
    s.busy.store(0, kRelaxed);
    s.busy_since_ms.store(0, kRelaxed);
    s.pid.store(-1, kRelaxed);  // taken; the real pid follows after fork
    return i;
  }
  return -1;
}

void assign_worker_slot(int slot, int pid) {
  if (g_block && slot >= 0) g_block->workers[slot].pid.store(pid, kRelaxed);
}

void release_worker_slot(int slot) {
  if (!g_block || slot < 0) return;
  g_block->workers[slot].busy.store(0, kRelaxed);
  g_block->workers[slot].busy_since_ms.store(0, kRelaxed);
  g_block->workers[slot].pid.store(0, kRelaxed);
}

int workers_busy_since(int pool, int64_t since_ms) {
  if (!g_block) return 0;
  int n = 0;
  for (const WorkerSlot& s : g_block->workers) {
    if (s.pid.load(kRelaxed) == 0 || s.pool.load(kRelaxed) != pool) continue;
    const int64_t began = s.busy_since_ms.load(kRelaxed);
    if (began > 0 && began <= since_ms) ++n;
  }
  return n;
}

// The futex word is the atomic int itself (lock-free, 4 bytes, the layout
// FUTEX_WAIT expects); not FUTEX_PRIVATE: the block is shared between
// processes.
int* futex_word() { return reinterpret_cast<int*>(&g_block->outbound_active); }

void set_outbound_active(int active) {
  if (!g_block || g_block->outbound_active.exchange(active) == active) return;
  ::syscall(SYS_futex, futex_word(), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void attach_worker(int slot, int pool) {
  g_slot = slot;
  g_pool = pool >= 0 && pool < kPools ? pool : 0;
}

int worker_slot() { return g_block ? g_slot : -1; }

void set_busy(bool busy) {
  if (!g_block || g_slot < 0) return;
  g_block->workers[g_slot].busy_since_ms.store(busy ? monotonic_ms() : 0, kRelaxed);
  g_block->workers[g_slot].busy.store(busy ? 1 : 0, kRelaxed);
}

int outbound_active() { return g_block ? g_block->outbound_active.load() : INT_MAX; }

void wait_outbound_active(int seen, const sigset_t& idle_mask) {
  if (!g_block) return;
  sigset_t request_mask;
  ::sigprocmask(SIG_SETMASK, &idle_mask, &request_mask);
  // A stop signal that comes between the unmask and the wait is handled
  // (its flag set) and the wait then lasts its second at most.
  const timespec timeout{1, 0};
  ::syscall(SYS_futex, futex_word(), FUTEX_WAIT, seen, &timeout, nullptr, 0);
  ::sigprocmask(SIG_SETMASK, &request_mask, nullptr);
}

void record_worker_wait(double seconds) {
  if (g_block) observe(g_block->worker_wait[g_pool], seconds);
}

void record_request(int route, int status, double seconds) {
  if (!g_block || status < kMinStatus || status >= kMinStatus + kStatusSlots) return;
  if (route < 0 || route >= kMaxRoutes) route = kOtherRoute;
  g_block->requests[route][status - kMinStatus].fetch_add(1, kRelaxed);
  observe(g_block->latency[route], seconds);
}

void count(Counter c) {
  if (g_block) g_block->counters[static_cast<int>(c)].fetch_add(1, kRelaxed);
}

bool claim_db_refresh(int64_t now_ms, int64_t interval_ms) {
  if (!g_block) return true;  // no sharing: every caller queries
  DbGaugeCache& c = g_block->db;
  int64_t refreshed = c.refreshed_ms.load(std::memory_order_acquire);
  if (refreshed != 0 && now_ms - refreshed < interval_ms) return false;
  int64_t claimed = c.claimed_ms.load(std::memory_order_acquire);
  if (claimed != 0 && now_ms - claimed < 30000) return false;
  return c.claimed_ms.compare_exchange_strong(claimed, now_ms, std::memory_order_acq_rel);
}

void publish_db(const int64_t (&values)[static_cast<int>(DbGauge::kCount)], bool ok, int64_t now_ms) {
  if (!g_block) return;
  DbGaugeCache& c = g_block->db;
  if (ok) {
    for (int i = 0; i < static_cast<int>(DbGauge::kCount); ++i) c.values[i].store(values[i], kRelaxed);
  }
  c.ok.store(ok ? 1 : 0, kRelaxed);
  c.refreshed_ms.store(now_ms, std::memory_order_release);
  c.claimed_ms.store(0, std::memory_order_release);
}

int64_t monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace svc::metrics
