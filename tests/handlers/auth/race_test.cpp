// Parallel requests against one SMS code and one login throttle, each from
// its own thread with its own database connection (one DbFixture each, as
// prefork workers have). A test session holds the row's lock until every
// request is waiting on it in the server, so all of them meet the row in
// the same state, whatever the scheduling: with one attempt left, exactly
// one may be evaluated.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "crypto/sealed_id.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(race_test)

namespace {

constexpr int kParallel = 16;

const std::string kDead = R"({"status":"Failed","message":"Code expired or invalid","attempts_left":0})";
const std::string kVerified = R"({"status":"Success","message":"SMS code verified"})";
const std::string kLastWrong = R"({"status":"Failed","message":"Invalid code","attempts_left":0})";

std::string unique_tag(const char* tag) {
  static const std::string run = std::to_string(::getpid()) + std::to_string(std::time(nullptr) % 100000);
  static int serial = 0;
  return std::string(tag) + "." + run + std::to_string(++serial);
}

// Holds `lock_sql` (a SELECT ... FOR UPDATE) in a transaction of its own
// session, runs `requests` on kParallel threads, and commits once the server
// shows kParallel sessions running a statement that starts with `waiting`
// (they are queued on the lock). Bounded: gives up after 20 s and fails.
template <class Request>
std::vector<svc::http::Response> run_blocked(const std::string& lock_sql, const std::string& waiting, Request request) {
  DbFixture locker;
  locker.exec("START TRANSACTION");
  locker.exec(lock_sql);
  std::vector<svc::http::Response> replies(kParallel);
  std::vector<std::thread> threads;
  for (int i = 0; i < kParallel; ++i) threads.emplace_back([&, i] { replies[static_cast<size_t>(i)] = request(i); });
  const std::string probe =
      "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND INFO LIKE '" + waiting +
      "%'";
  long long queued = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((queued = locker.count(probe)) < kParallel && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  locker.exec("COMMIT");
  for (auto& t : threads) t.join();
  BOOST_REQUIRE_EQUAL(queued, kParallel);
  return replies;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sixteen_parallel_guesses_at_the_last_attempt_evaluate_one) {
  DbFixture f;
  BOOST_REQUIRE_EQUAL(f.config.auth.sms.max_attempts, 5);
  const std::string table = f.config.auth.tables.front();
  svc::db::NewUser fresh;
  const std::string tag = unique_tag("sms-race");
  fresh.email = tag + "@example.com";
  fresh.password_hash = "!";
  fresh.mobile = "+1" + std::to_string(::getpid()) + std::to_string(std::time(nullptr) % 100000);
  auto id = svc::db::UserRepo(f.db, *svc::db::allowlisted(table, f.config.auth.tables)).insert(fresh);
  BOOST_REQUIRE(id);
  const std::string user =
      svc::crypto::seal_id(*id, f.clock.now() + 3600, svc::crypto::IdPurpose::User, f.config.keys.id_key);
  auto verify = [&](DbFixture& fx, const std::string& code) {
    return fx.post("/auth/verify-sms-code", R"({"userId":")" + user + R"(","code":")" + code + R"("})");
  };

  f.random.values = {424242};
  BOOST_REQUIRE_EQUAL(f.post("/auth/user-sms-code", R"({"userId":")" + user + R"("})").status, 200);
  for (int i = 0; i < 4; ++i) BOOST_REQUIRE_EQUAL(verify(f, "000000").status, 400);

  // Request 0 sends the right code, the others wrong ones.
  std::vector<std::unique_ptr<DbFixture>> workers;
  for (int i = 0; i < kParallel; ++i) workers.push_back(std::make_unique<DbFixture>());
  auto replies = run_blocked("SELECT attempts FROM svc_sms_codes WHERE user_id = " + std::to_string(*id) +
                                 " AND auth_table = '" + table + "' FOR UPDATE",
                             "UPDATE svc_sms_codes", [&](int i) {
                               return verify(*workers[static_cast<size_t>(i)],
                                             i == 0 ? "424242" : "1000" + std::to_string(10 + i));
                             });

  int evaluated = 0;
  for (const auto& r : replies) {
    BOOST_CHECK_EQUAL(r.status, r.body == kVerified ? 200 : 400);
    BOOST_CHECK(r.body == kDead || r.body == kVerified || r.body == kLastWrong);
    if (r.body != kDead) ++evaluated;
  }
  BOOST_CHECK_EQUAL(evaluated, 1);
  BOOST_CHECK_EQUAL(f.count("SELECT attempts FROM svc_sms_codes WHERE user_id = " + std::to_string(*id)), 5);
}

BOOST_AUTO_TEST_CASE(sixteen_parallel_logins_at_the_last_allowed_failure_check_one_password) {
  DbFixture f;
  const int max_failures = f.config.auth.login_max_failures;
  BOOST_REQUIRE_GT(max_failures, 1);
  const std::string table = f.config.auth.tables.front();
  const std::string email = unique_tag("login-race") + "@example.com";  // nobody: every attempt fails
  const std::string key = "auth_table = '" + table + "' AND email = '" + email + "'";
  f.exec("INSERT INTO svc_login_throttle (auth_table, email, failures, window_start, locked_until) VALUES ('" + table +
         "', '" + email + "', " + std::to_string(max_failures - 1) + ", " + std::to_string(f.clock.now()) + ", 0)");

  std::vector<std::unique_ptr<DbFixture>> workers;
  for (int i = 0; i < kParallel; ++i) workers.push_back(std::make_unique<DbFixture>());
  auto replies = run_blocked("SELECT failures FROM svc_login_throttle WHERE " + key + " FOR UPDATE",
                             "INSERT IGNORE INTO svc_login_throttle", [&](int i) {
                               return workers[static_cast<size_t>(i)]->post(
                                   "/auth/login", R"({"email":")" + email + R"(","password":"Wrong@Pass1"})");
                             });

  int checked = 0, throttled = 0, verifications = 0;
  for (const auto& r : replies) (r.status == 429 ? throttled : checked) += 1;
  for (const auto& w : workers) verifications += w->hasher.verifications;
  BOOST_CHECK_EQUAL(checked, 1);
  BOOST_CHECK_EQUAL(throttled, kParallel - 1);
  BOOST_CHECK_EQUAL(verifications, 1);
  BOOST_CHECK_EQUAL(f.count("SELECT failures FROM svc_login_throttle WHERE " + key), max_failures);
  f.exec("DELETE FROM svc_login_throttle WHERE " + key);
}

BOOST_AUTO_TEST_SUITE_END()
