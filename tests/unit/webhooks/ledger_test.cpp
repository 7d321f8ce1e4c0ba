// The ledger between the webhook delivery threads and the thread that
// writes their outcomes (webhooks/ledger.hpp): outcomes come out in the
// order they went in, the writer is woken for a failure at once and for
// delivered rows only once enough wait, and the last take of a batch says
// that every delivery thread is done.
#include "webhooks/ledger.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <thread>

using svc::webhooks::Ledger;
using svc::webhooks::Outcome;

namespace {

Outcome delivered(long long id) {
  return {.kind = Outcome::Kind::kDelivered, .endpoint_id = 1, .ids = {id}, .http_status = 204};
}

std::vector<long long> ids_of(const std::vector<Outcome>& outcomes) {
  std::vector<long long> ids;
  for (const auto& o : outcomes) ids.insert(ids.end(), o.ids.begin(), o.ids.end());
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ledger_test)

BOOST_AUTO_TEST_CASE(enough_delivered_rows_are_taken_in_order_and_the_rest_when_the_threads_are_done) {
  Ledger ledger(3);
  ledger.begin(1);
  for (long long id = 1; id <= 4; ++id) ledger.add(delivered(id));
  std::vector<Outcome> out;
  BOOST_TEST(ledger.take(out));  // 4 >= 3 wait: taken while the thread still sends
  BOOST_TEST(ids_of(out) == std::vector<long long>({1, 2, 3, 4}));
  ledger.add(delivered(5));
  ledger.done();
  BOOST_TEST(!ledger.take(out));  // every thread done: the last of its outcomes
  BOOST_TEST(ids_of(out) == std::vector<long long>({5}));
}

BOOST_AUTO_TEST_CASE(a_failure_is_taken_at_once_after_the_deliveries_before_it) {
  Ledger ledger(50);
  ledger.begin(1);
  ledger.add(delivered(1));
  ledger.add({.kind = Outcome::Kind::kRetry, .endpoint_id = 1, .ids = {2}, .http_status = 500, .delay = 5});
  std::vector<Outcome> out;
  BOOST_TEST(ledger.take(out));  // one delivered row is not enough, the failure is
  BOOST_REQUIRE(out.size() == 2u);
  BOOST_TEST((out[0].kind == Outcome::Kind::kDelivered && out[1].kind == Outcome::Kind::kRetry));
  ledger.done();
  BOOST_TEST(!ledger.take(out));
  BOOST_TEST(out.empty());
}

BOOST_AUTO_TEST_CASE(the_writer_waits_for_the_delivery_threads) {
  Ledger ledger(100);
  ledger.begin(2);
  std::thread a([&] {
    for (long long id = 1; id <= 30; ++id) ledger.add(delivered(id));
    ledger.done();
  });
  std::thread b([&] {
    for (long long id = 101; id <= 130; ++id) ledger.add(delivered(id));
    ledger.done();
  });
  std::vector<long long> seen;
  std::vector<Outcome> out;
  for (bool more = true; more;) {
    more = ledger.take(out);
    const auto ids = ids_of(out);
    seen.insert(seen.end(), ids.begin(), ids.end());
  }
  a.join();
  b.join();
  BOOST_TEST(seen.size() == 60u);  // nothing lost; each thread's rows in its own order
  std::vector<long long> from_a, from_b;
  for (long long id : seen) (id < 100 ? from_a : from_b).push_back(id);
  BOOST_TEST(std::is_sorted(from_a.begin(), from_a.end()));
  BOOST_TEST(std::is_sorted(from_b.begin(), from_b.end()));
}

BOOST_AUTO_TEST_SUITE_END()
