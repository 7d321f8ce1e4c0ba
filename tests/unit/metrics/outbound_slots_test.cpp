// The per-site cap on outbound calls, counted in memory shared by forked
// workers (metrics/outbound_slots.hpp): the cap holds across processes, other
// sites keep their places, and a holder that dies without releasing frees its
// place only when the master clears its slot (as the reap does). The cap
// fails closed: no slot, or a mutex that cannot be locked, is a refusal.
#include "metrics/outbound_slots.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cerrno>

#include "metrics/metrics.hpp"
#include "metrics/robust_mutex.hpp"

namespace m = svc::metrics;

namespace {

// Runs `body` in a forked child and returns its exit code (the child takes
// places in the shared table; the parent sees them).
template <class F>
int in_child(F body) {
  pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Table {
  Table() {
    m::map_outbound_slots();
    for (int slot = 0; slot < 64; ++slot) m::clear_outbound_hold(slot);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(outbound_slots_test, Table)

BOOST_AUTO_TEST_CASE(cap_counts_places_taken_in_other_processes) {
  constexpr int kCap = 2;
  // Two children (two workers) take the site's two places and exit without
  // releasing them, as a worker killed mid-push would.
  BOOST_TEST(in_child([] { return m::try_outbound_hold(10, 7, kCap) ? 0 : 1; }) == 0);
  BOOST_TEST(in_child([] { return m::try_outbound_hold(11, 7, kCap) ? 0 : 1; }) == 0);
  BOOST_TEST(m::outbound_holders(7) == 2);
  BOOST_TEST(!m::try_outbound_hold(12, 7, kCap), "a third concurrent call of site 7 is refused");
  BOOST_TEST(m::try_outbound_hold(12, 8, kCap), "another site still gets a place");
  // The master reaps the dead worker of slot 10: its place is free again.
  m::clear_outbound_hold(10);
  BOOST_TEST(m::outbound_holders(7) == 1);
  BOOST_TEST(m::try_outbound_hold(13, 7, kCap));
  BOOST_TEST(!m::try_outbound_hold(14, 7, kCap));
}

BOOST_AUTO_TEST_CASE(release_frees_the_place_and_zero_means_no_cap) {
  BOOST_TEST(m::try_outbound_hold(20, 9, 1));
  BOOST_TEST(!m::try_outbound_hold(21, 9, 1));
  m::release_outbound_hold(20);
  BOOST_TEST(m::try_outbound_hold(21, 9, 1));
  for (int slot = 30; slot < 40; ++slot) BOOST_TEST(m::try_outbound_hold(slot, 9, 0));
  BOOST_TEST(m::outbound_holders(9) == 1, "cap 0 grants without counting");
}

// Issue 48: the password score's bound on concurrent scoring is a place
// under a key that is no site (auth/password/policy.cpp): capped like a
// site, apart from every site.
BOOST_AUTO_TEST_CASE(the_password_scoring_key_is_capped_apart_from_the_sites) {
  BOOST_TEST(m::try_outbound_hold(50, m::kPasswordScoringKey, 2));
  BOOST_TEST(m::try_outbound_hold(51, m::kPasswordScoringKey, 2));
  BOOST_TEST(!m::try_outbound_hold(52, m::kPasswordScoringKey, 2), "a third worker scoring at once is refused");
  BOOST_TEST(m::try_outbound_hold(52, 1, 2), "site 1 keeps its places");
  m::release_outbound_hold(50);
  BOOST_TEST(m::try_outbound_hold(53, m::kPasswordScoringKey, 2));
  for (int slot : {51, 52, 53}) m::release_outbound_hold(slot);
}

BOOST_AUTO_TEST_CASE(a_worker_without_a_slot_is_refused_not_granted_uncounted) {
  // A worker forked when every slot was taken (over kMaxWorkerSlots, or two
  // generations during a reload) has slot -1; one past the table likewise.
  BOOST_TEST(!m::try_outbound_hold(-1, 5, 1));
  BOOST_TEST(!m::try_outbound_hold(m::kMaxWorkerSlots, 5, 1));
  BOOST_TEST(!m::try_outbound_hold(-1, 5, 100), "refused even far below the cap");
  BOOST_TEST(m::outbound_holders(5) == 0);
  // The test process never attached to a worker slot (metrics::worker_slot() == -1).
  m::OutboundHold hold(5, 1);
  BOOST_TEST(!hold.granted());
  m::OutboundHold uncapped(5, 0);
  BOOST_TEST(uncapped.granted(), "cap 0 = no cap, no slot needed");
}

BOOST_AUTO_TEST_CASE(a_worker_with_a_slot_holds_through_the_raii_guard) {
  m::map_shared_block();  // worker_slot() is -1 without it
  m::attach_worker(50, 2);
  {
    m::OutboundHold hold(6, 1);
    BOOST_TEST(hold.granted());
    BOOST_TEST(m::outbound_holders(6) == 1);
    BOOST_TEST(!m::try_outbound_hold(51, 6, 1));
  }
  BOOST_TEST(m::outbound_holders(6) == 0, "the guard gave its place back");
  m::attach_worker(-1, 0);
}

// A robust mutex whose owner died and which nobody made consistent is
// ENOTRECOVERABLE for good: lock_robust refuses it (the outbound table then
// refuses every hold) instead of carrying on unlocked.
BOOST_AUTO_TEST_CASE(an_unrecoverable_mutex_is_refused) {
  void* p = mmap(nullptr, sizeof(pthread_mutex_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  BOOST_REQUIRE(p != MAP_FAILED);
  auto* mutex = static_cast<pthread_mutex_t*>(p);
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  BOOST_REQUIRE(pthread_mutex_init(mutex, &attr) == 0);
  pthread_mutexattr_destroy(&attr);

  BOOST_TEST(m::lock_robust(mutex), "a healthy mutex locks");
  pthread_mutex_unlock(mutex);
  // The owner dies inside: the next locker recovers it (EOWNERDEAD).
  BOOST_TEST(in_child([mutex] { return pthread_mutex_lock(mutex); }) == 0);
  BOOST_TEST(m::lock_robust(mutex), "an owner-dead mutex is recovered");
  pthread_mutex_unlock(mutex);
  // The owner dies again and the next locker unlocks without consistent():
  // the mutex is now ENOTRECOVERABLE.
  BOOST_TEST(in_child([mutex] { return pthread_mutex_lock(mutex); }) == 0);
  BOOST_TEST(pthread_mutex_lock(mutex) == EOWNERDEAD);
  pthread_mutex_unlock(mutex);
  BOOST_TEST(pthread_mutex_lock(mutex) == ENOTRECOVERABLE);
  BOOST_TEST(!m::lock_robust(mutex), "an unrecoverable mutex is refused");
  munmap(p, sizeof(pthread_mutex_t));
}

BOOST_AUTO_TEST_SUITE_END()
