// auth::mfa_lock_wait and begins_mfa_lock: the lock on wrong second-factor
// answers as a function of when they happened (issue 36), table-driven.
#include <boost/test/unit_test.hpp>
#include <optional>
#include <vector>

#include "auth/mfa/guard.hpp"

using svc::auth::begins_mfa_lock;
using svc::auth::mfa_lock_wait;

BOOST_AUTO_TEST_SUITE(mfa_lock_rule_test)

namespace {

constexpr long long kNow = 1'800'000'000;

// `count` answers at `at`.
std::vector<long long> answers(std::size_t count, long long at) { return std::vector<long long>(count, at); }

std::vector<long long> operator+(std::vector<long long> a, const std::vector<long long>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_lock_doubles_and_the_cap_holds_for_the_day) {
  const svc::config::MfaLockRules rules;  // 5, 60 s, 20
  struct Case {
    const char* what;
    std::vector<long long> wrong_at;
    std::optional<long long> wait;
  };
  const Case cases[] = {
      {"none", {}, std::nullopt},
      {"four now", answers(4, kNow), std::nullopt},
      {"five now", answers(5, kNow), 60},
      {"five 59 s ago", answers(5, kNow - 59), 1},
      {"five 60 s ago", answers(5, kNow - 60), std::nullopt},
      {"nine, the fifth a minute ago", answers(5, kNow - 60) + answers(4, kNow), std::nullopt},
      {"ten now", answers(10, kNow), 120},
      {"fifteen now", answers(15, kNow), 240},
      {"fifteen, the last 240 s ago", answers(15, kNow - 240), std::nullopt},
      {"twenty, the oldest an hour ago", answers(5, kNow - 3600) + answers(15, kNow), 86400 - 3600},
      {"twenty-two (parallel), the third oldest ends it", answers(2, kNow - 7200) + answers(20, kNow - 3600),
       86400 - 3600},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      const auto wait = mfa_lock_wait(c.wrong_at, kNow, rules);
      BOOST_TEST(wait.has_value() == c.wait.has_value());
      BOOST_TEST(wait.value_or(0) == c.wait.value_or(0));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_long_ladder_never_outlasts_a_day) {
  svc::config::MfaLockRules rules;
  rules.lock_after = 1;
  rules.lock_seconds = 86400;
  rules.max_wrong_daily = 1000;
  BOOST_TEST(mfa_lock_wait(answers(40, kNow), kNow, rules).value_or(0) == 86400);
}

BOOST_AUTO_TEST_CASE(which_wrong_answer_begins_a_lock) {
  const svc::config::MfaLockRules rules;
  for (std::size_t n : {5, 10, 15, 20}) BOOST_TEST(begins_mfa_lock(n, rules), n);
  for (std::size_t n : {0, 1, 4, 6, 19, 21}) BOOST_TEST(!begins_mfa_lock(n, rules), n);
}

BOOST_AUTO_TEST_SUITE_END()
