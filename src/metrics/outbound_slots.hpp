#pragma once
// The per-site cap on concurrent outbound calls (a push to a push service, a
// merge query on [database.merge]), counted across every worker of one
// svc-fcgi master.
//
// The master calls map_outbound_slots() once before it forks (like
// map_shared_block): one record per worker slot (metrics::claim_worker_slot)
// says which site that worker is calling out for, 0 for none. A worker is
// single-threaded, so it holds at most one call at a time. The count of a
// site is the number of records naming it; taking a place counts and writes
// under one process-shared robust mutex, so the cap is exact, and a worker
// killed inside the mutex does not wedge the others (EOWNERDEAD is
// recovered). A worker that dies while holding a place keeps its record
// until the master reaps it and calls clear_outbound_hold(slot): nothing
// leaks past the reap.
//
// The cap fails closed: once the table is mapped, a process without a worker
// slot (more workers than slots, or a fork the master could not give one)
// and a mutex that cannot be locked (ENOTRECOVERABLE, or any other error)
// are refused, never granted uncounted. Only a process that never had the
// mapping (svc-admin, svc-sender, handler tests: no master forked it) is
// granted without counting, since no other process can share its calls.

#include <cstdint>

namespace svc::metrics {

// A key of the table that is no site: a cap of svc's own on work any
// request can start (auth/password/policy.cpp: the password score).
inline constexpr int64_t kPasswordScoringKey = -1;

// Maps and initialises the table. Call once in the master before the first
// fork; a second call is a no-op. Throws std::runtime_error when mmap or the
// mutex set-up fails.
void map_outbound_slots();

// True when worker `slot` may call out for `site_id`: fewer than `cap`
// other records name the site (cap <= 0 = no cap). On true the record names
// the site until release_outbound_hold(slot). False, with the table mapped
// and a cap set, for a slot outside the table or a mutex that cannot be
// locked. REQUIRES: site_id > 0 or a key above (never 0); the slot holds nothing now.
bool try_outbound_hold(int slot, int64_t site_id, int cap);
void release_outbound_hold(int slot);
// Master side, after reaping the worker of `slot`: drops whatever it held.
void clear_outbound_hold(int slot);
// How many records name `site_id` now (for tests and the log line).
int outbound_holders(int64_t site_id);

// RAII for the calling worker's own slot (metrics::worker_slot()).
class OutboundHold {
 public:
  // Tries to take a place for site_id under `cap` in this worker's slot;
  // granted() says whether it did (false for a worker without a slot).
  OutboundHold(int64_t site_id, int cap);
  ~OutboundHold();
  OutboundHold(const OutboundHold&) = delete;
  OutboundHold& operator=(const OutboundHold&) = delete;
  bool granted() const { return granted_; }

 private:
  int slot_ = -1;  // the record to release; -1 = nothing counted
  bool granted_ = true;
};

}  // namespace svc::metrics
