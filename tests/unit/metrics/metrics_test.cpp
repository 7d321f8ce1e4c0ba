// The shared metrics block and its text format: counts made in forked
// children add up in the parent (as workers' do in the master), histogram
// buckets come out cumulative, and the database gauge cache lets one caller
// query per interval.
#include "metrics/metrics.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/exposition.hpp"

namespace m = svc::metrics;

namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics_test)

BOOST_AUTO_TEST_CASE(children_count_into_the_parents_block) {
  m::map_shared_block();
  m::SharedBlock* b = m::snapshot();
  BOOST_REQUIRE(b);
  uint64_t before = b->requests[3][200 - m::kMinStatus].load();
  constexpr int kChildren = 4, kEach = 25;
  std::vector<pid_t> children;
  for (int i = 0; i < kChildren; ++i) {
    pid_t pid = fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
      for (int n = 0; n < kEach; ++n) m::record_request(3, 200, 0.002);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) waitpid(pid, nullptr, 0);
  BOOST_TEST(b->requests[3][200 - m::kMinStatus].load() - before == uint64_t{kChildren * kEach});
}

BOOST_AUTO_TEST_CASE(text_format_has_cumulative_buckets_and_named_routes) {
  m::map_shared_block();
  m::record_request(0, 404, 0.0005);           // first bucket
  m::record_request(0, 404, 0.3);              // le=0.5
  m::record_request(m::kOtherRoute, 200, 20);  // above every bound
  const std::string_view routes[] = {"/first", ""};
  int64_t gauges[static_cast<int>(m::DbGauge::kCount)] = {};
  gauges[static_cast<int>(m::DbGauge::kOutboxPending)] = 7;
  gauges[static_cast<int>(m::DbGauge::kSenderLastDurationMs)] = 1500;
  std::string text = m::render(m::snapshot(), {routes, gauges, true});
  BOOST_TEST(has_line(text, "svc_http_requests_total{route=\"/first\",status=\"404\"} 2"));
  BOOST_TEST(has_line(text, "svc_http_request_duration_seconds_bucket{route=\"/first\",le=\"0.001\"} 1"));
  BOOST_TEST(has_line(text, "svc_http_request_duration_seconds_bucket{route=\"/first\",le=\"0.25\"} 1"));
  BOOST_TEST(has_line(text, "svc_http_request_duration_seconds_bucket{route=\"/first\",le=\"0.5\"} 2"));
  BOOST_TEST(has_line(text, "svc_http_request_duration_seconds_bucket{route=\"/first\",le=\"+Inf\"} 2"));
  BOOST_TEST(has_line(text, "svc_http_request_duration_seconds_count{route=\"/first\"} 2"));
  BOOST_TEST(has_line(text, "svc_http_request_duration_seconds_bucket{route=\"other\",le=\"10\"} 0"));
  BOOST_TEST(has_line(text, "svc_http_request_duration_seconds_bucket{route=\"other\",le=\"+Inf\"} 1"));
  BOOST_TEST(has_line(text, "svc_outbox_pending 7"));
  BOOST_TEST(has_line(text, "svc_sender_last_run_duration_seconds 1.5"));
  BOOST_TEST(has_line(text, "svc_metrics_db_up 1"));
  // The row with an empty label (a second method of a listed path) is skipped.
  BOOST_TEST(text.find("route=\"\"") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(without_the_database_its_gauges_are_left_out) {
  std::string text = m::render(m::snapshot(), {{}, nullptr, false});
  BOOST_TEST(has_line(text, "svc_metrics_db_up 0"));
  BOOST_TEST(text.find("svc_outbox_pending") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(one_refresh_per_interval) {
  m::map_shared_block();
  int64_t values[static_cast<int>(m::DbGauge::kCount)] = {};
  int64_t t = 1'000'000'000;
  // Whatever earlier cases left: start from a published state.
  if (m::claim_db_refresh(t, 0)) m::publish_db(values, true, t);
  t += 20'000;
  BOOST_TEST(m::claim_db_refresh(t, 10'000));
  BOOST_TEST(!m::claim_db_refresh(t + 1, 10'000));  // someone is querying
  m::publish_db(values, true, t + 5);
  BOOST_TEST(!m::claim_db_refresh(t + 9'000, 10'000));  // still fresh
  BOOST_TEST(m::claim_db_refresh(t + 10'005, 10'000));
  m::publish_db(values, false, t + 10'010);
  BOOST_TEST(m::snapshot()->db.ok.load() == 0);
  // A claim left by a worker that died is taken over after 30 s.
  t += 100'000;
  BOOST_TEST(m::claim_db_refresh(t, 10'000));
  BOOST_TEST(!m::claim_db_refresh(t + 29'000, 10'000));
  BOOST_TEST(m::claim_db_refresh(t + 31'000, 10'000));
  m::publish_db(values, true, t + 31'000);
}

BOOST_AUTO_TEST_CASE(busy_and_idle_workers_per_pool) {
  m::map_shared_block();
  int a = m::claim_worker_slot(1);
  int b = m::claim_worker_slot(1);
  BOOST_REQUIRE(a >= 0 && b >= 0 && a != b);
  m::assign_worker_slot(a, 101);
  m::assign_worker_slot(b, 102);
  m::attach_worker(a, 1);
  m::set_busy(true);
  std::string text = m::render(m::snapshot(), {{}, nullptr, false});
  BOOST_TEST(has_line(text, "svc_workers{pool=\"hashing\",state=\"busy\"} 1"));
  BOOST_TEST(has_line(text, "svc_workers{pool=\"hashing\",state=\"idle\"} 1"));
  m::release_worker_slot(a);
  m::release_worker_slot(b);
  m::attach_worker(-1, 0);
  text = m::render(m::snapshot(), {{}, nullptr, false});
  BOOST_TEST(has_line(text, "svc_workers{pool=\"hashing\",state=\"busy\"} 0"));
}

BOOST_AUTO_TEST_SUITE_END()
