// Why a mutex rather than a lock-free counter: a counter per site needs a
// second record of who incremented it, and a worker killed between the two
// writes either leaks a place or frees one it never took. Counting the
// per-worker records under a robust mutex has no such window; the scan is
// kMaxWorkerSlots loads, far below one outbound call.

#include "metrics/outbound_slots.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "metrics/metrics.hpp"

namespace svc::metrics {
namespace {

struct OutboundTable {
  pthread_mutex_t lock;
  std::atomic<int64_t> site[kMaxWorkerSlots];  // 0 = holds nothing
};

OutboundTable* g_table = nullptr;

bool valid_slot(int slot) { return slot >= 0 && slot < kMaxWorkerSlots; }

// Locks, recovering a mutex whose owner died inside it (its record is
// cleared by the master's reap, so the state it guards is consistent).
bool lock_table() {
  int rc = pthread_mutex_lock(&g_table->lock);
  if (rc == EOWNERDEAD) rc = pthread_mutex_consistent(&g_table->lock);
  return rc == 0;
}

int count_locked(int64_t site_id) {
  int n = 0;
  for (const auto& s : g_table->site) n += s.load(std::memory_order_relaxed) == site_id ? 1 : 0;
  return n;
}

}  // namespace

void map_outbound_slots() {
  if (g_table) return;
  void* p = mmap(nullptr, sizeof(OutboundTable), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(std::string("outbound slots: mmap: ") + std::strerror(errno));
  auto* table = new (p) OutboundTable{};
  pthread_mutexattr_t attr;
  if (pthread_mutexattr_init(&attr) != 0 || pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) != 0 ||
      pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) != 0 || pthread_mutex_init(&table->lock, &attr) != 0) {
    throw std::runtime_error("outbound slots: cannot set up the process-shared mutex");
  }
  pthread_mutexattr_destroy(&attr);
  g_table = table;
}

bool try_outbound_hold(int slot, int64_t site_id, int cap) {
  if (!g_table || !valid_slot(slot) || cap <= 0) return true;
  if (!lock_table()) return true;  // never refuse for a fault of ours
  bool ok = count_locked(site_id) < cap;
  if (ok) g_table->site[slot].store(site_id, std::memory_order_relaxed);
  pthread_mutex_unlock(&g_table->lock);
  return ok;
}

void release_outbound_hold(int slot) {
  if (g_table && valid_slot(slot)) g_table->site[slot].store(0, std::memory_order_relaxed);
}

void clear_outbound_hold(int slot) { release_outbound_hold(slot); }

int outbound_holders(int64_t site_id) {
  if (!g_table || !lock_table()) return 0;
  int n = count_locked(site_id);
  pthread_mutex_unlock(&g_table->lock);
  return n;
}

OutboundHold::OutboundHold(int64_t site_id, int cap) {
  const int slot = worker_slot();
  if (!g_table || !valid_slot(slot) || cap <= 0) return;
  granted_ = try_outbound_hold(slot, site_id, cap);
  if (granted_) slot_ = slot;
}

OutboundHold::~OutboundHold() {
  if (slot_ >= 0) release_outbound_hold(slot_);
}

}  // namespace svc::metrics
