// The login's second step with the fixed clock, against the stack's database:
// an mfa_token lives exactly 300 s; a TOTP code is accepted for the steps
// now-1, now and now+1 (never now±2), each step once, and a step older than
// the newest accepted one never again. The codes come from crypto::totp_code,
// whose RFC 6238 vectors unit.totp_test checks.
#include <rapidjson/document.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <ctime>
#include <string>

#include "auth/mfa/totp_factor.hpp"
#include "crypto/totp.hpp"
#include "db/mfa_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"
#include "mfa_user.hpp"

using svc::testing::DbFixture;
using svc::testing::MfaUser;

BOOST_AUTO_TEST_SUITE(mfa_window_test)

namespace {

const std::string kInvalidCode = R"({"status":"Failed","message":"Invalid code"})";
const std::string kExpired = R"({"status":"Failed","message":"Second factor expired, log in again"})";

svc::http::Response verify(DbFixture& f, const std::string& token, const std::string& code) {
  return f.post("/auth/mfa/verify", R"({"mfa_token":")" + token + R"(","code":")" + code + R"("})");
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_mfa_token_lives_exactly_five_minutes) {
  DbFixture f;
  MfaUser user(f);
  const std::string late = user.mfa_token(f);
  const std::string in_time = user.mfa_token(f);
  const long long issued = f.clock.value;
  f.clock.value = issued + 299;
  auto ok = verify(f, in_time, user.code(f.clock.value, 0));
  BOOST_TEST(ok.status == 200, ok.body);
  f.clock.value = issued + 300;
  auto expired = verify(f, late, user.code(f.clock.value, 1));
  BOOST_TEST(expired.status == 401);
  BOOST_TEST(expired.body == kExpired);
}

// The second step costs no Argon2id: the bench's "login + mfa verify" arm
// relies on it (bench/sign_in_arms.py), and a wrong code must not be a way to
// make the server hash either.
BOOST_AUTO_TEST_CASE(verify_computes_no_password_hash) {
  DbFixture f;
  MfaUser user(f);
  const std::string wrong = user.mfa_token(f);
  const std::string right = user.mfa_token(f);
  f.hasher.argon2_work = 0;
  const std::string bad = user.code(f.clock.value, 0) == "000000" ? "111111" : "000000";
  BOOST_TEST(verify(f, wrong, bad).status == 401);
  auto ok = verify(f, right, user.code(f.clock.value, 0));
  BOOST_TEST(ok.status == 200, ok.body);
  BOOST_TEST(f.hasher.argon2_work == 0);
  user.mfa_token(f);  // the password step itself: one Argon2id, counted
  BOOST_TEST(f.hasher.argon2_work == 1);
}

BOOST_AUTO_TEST_CASE(one_step_of_drift_each_way_and_each_step_once) {
  DbFixture f;
  f.config.auth.mfa_lock.lock_after = 100;  // six wrong answers: the window's test, not the lock's (mfa_lock_test)
  f.clock.value = 1800000015;               // mid-step
  MfaUser user(f);
  const long long now = f.clock.value;
  for (long long far : {2, -2, 3}) {
    BOOST_TEST_CONTEXT("step now" << (far > 0 ? "+" : "") << far) {
      // A code of a step outside the window may equal one inside by chance (1e-6).
      if (user.code(now, far) == user.code(now, -1) || user.code(now, far) == user.code(now, 0) ||
          user.code(now, far) == user.code(now, 1)) {
        continue;
      }
      auto reply = verify(f, user.mfa_token(f), user.code(now, far));
      BOOST_TEST(reply.status == 401);
      BOOST_TEST(reply.body == kInvalidCode);
    }
  }
  BOOST_TEST(verify(f, user.mfa_token(f), user.code(now, -1)).status == 200);
  BOOST_TEST(verify(f, user.mfa_token(f), user.code(now, 1)).status == 200);
  // now is older than the accepted now+1; now-1 was accepted already.
  for (long long again : {0, -1, 1}) {
    BOOST_TEST_CONTEXT("step now" << again << " again") {
      auto reply = verify(f, user.mfa_token(f), user.code(now, again));
      BOOST_TEST(reply.status == 401);
      BOOST_TEST(reply.body == kInvalidCode);
    }
  }
}

// Two requests (two connections) that both read the factor before either
// wrote: the conditional UPDATE accepts the step for one of them only, and a
// step older than the accepted one for neither.
BOOST_AUTO_TEST_CASE(of_two_connections_that_read_the_same_factor_one_accepts_the_step) {
  DbFixture f;
  MfaUser user(f);
  svc::db::Database other(f.config.database);
  svc::db::MfaRepo first(f.db), second(other);
  const std::string& table = user.table.str();
  auto seen_first = first.find_factor(table, user.user_id);
  auto seen_second = second.find_factor(table, user.user_id);
  BOOST_REQUIRE(seen_first && seen_second);
  BOOST_TEST(seen_first->last_step == seen_second->last_step);
  const long long now = f.clock.value;
  const long long step = svc::crypto::totp_step(now);
  BOOST_TEST(first.accept_step(table, user.user_id, seen_first->secret_sealed, step, false, now));
  BOOST_TEST(!second.accept_step(table, user.user_id, seen_second->secret_sealed, step, false, now));
  BOOST_TEST(!second.accept_step(table, user.user_id, seen_second->secret_sealed, step - 1, false, now));
  BOOST_TEST(second.accept_step(table, user.user_id, seen_second->secret_sealed, step + 1, false, now));
}

BOOST_AUTO_TEST_SUITE_END()
