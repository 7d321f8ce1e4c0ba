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
#include "metrics/robust_mutex.hpp"

namespace svc::metrics {
namespace {

struct OutboundTable {
  pthread_mutex_t lock;
  std::atomic<int64_t> site[kMaxWorkerSlots];  // 0 = holds nothing
};

OutboundTable* g_table = nullptr;

bool valid_slot(int slot) { return slot >= 0 && slot < kMaxWorkerSlots; }

// Locks, recovering a mutex whose owner died inside it (its record is
// cleared by the master's reap, so the state it guards is consistent);
// false when the mutex cannot be locked.
bool lock_table() { return lock_robust(&g_table->lock); }

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
  if (!g_table || cap <= 0) return true;
  // Fail closed: a worker the table cannot count (no slot) or a table we
  // cannot lock would otherwise be an uncapped way out for every site.
  if (!valid_slot(slot) || !lock_table()) return false;
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
  if (!g_table || cap <= 0) return;
  const int slot = worker_slot();
  granted_ = try_outbound_hold(slot, site_id, cap);
  if (granted_) slot_ = slot;
}

OutboundHold::~OutboundHold() {
  if (slot_ >= 0) release_outbound_hold(slot_);
}

}  // namespace svc::metrics
