// The per-site cap on outbound calls, counted in memory shared by forked
// workers (metrics/outbound_slots.hpp): the cap holds across processes, other
// sites keep their places, and a holder that dies without releasing frees its
// place only when the master clears its slot (as the reap does).
#include "metrics/outbound_slots.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

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

BOOST_AUTO_TEST_CASE(hold_of_a_process_without_a_worker_slot_is_granted_uncounted) {
  // The test process never attached to a worker slot (metrics::worker_slot() == -1).
  BOOST_TEST(m::try_outbound_hold(40, 5, 1));
  m::OutboundHold hold(5, 1);
  BOOST_TEST(hold.granted());
  BOOST_TEST(m::outbound_holders(5) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
