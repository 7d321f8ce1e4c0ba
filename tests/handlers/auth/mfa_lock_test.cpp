// The per-account cap on wrong second-factor answers (issue 36, item 3) on
// the fixed clock: with the defaults ([auth] mfa_lock_after 5,
// mfa_lock_seconds 60, mfa_max_wrong_daily 20), every 5th wrong answer locks
// the second step for 1, 2, then 4 minutes, the 20th until the oldest of
// them is 24 h old; while locked every answer (the right TOTP code, a right
// recovery code, a code at the bearer routes) gets 429 with retry_after and
// is not checked; each lock mails the owner once. Between the batches the
// clock passes the login throttle's window, so only the new cap speaks.
#include <boost/test/unit_test.hpp>
#include <string>

#include "db_fixture.hpp"
#include "mfa_user.hpp"
#include "worker_caches.hpp"

using svc::testing::DbFixture;
using svc::testing::MfaUser;
using svc::testing::WorkerCaches;

BOOST_AUTO_TEST_SUITE(mfa_lock_test)

namespace {

const std::string kInvalidCode = R"({"status":"Failed","message":"Invalid code"})";
constexpr long long kSite = 1;  // the stack's demo site, which sends mail

std::string locked(long long retry_after) {
  return R"({"status":"Failed","message":"Too many attempts","retry_after":)" + std::to_string(retry_after) + "}";
}

svc::http::Response verify(DbFixture& f, const std::string& token, const std::string& code) {
  return f.post("/auth/mfa/verify", R"({"mfa_token":")" + token + R"(","code":")" + code + R"("})");
}

// One mfa_token spent on five wrong codes, each refused as wrong.
void five_wrong(DbFixture& f, const MfaUser& user) {
  const std::string token = user.mfa_token(f, kSite);
  for (int i = 0; i < 5; ++i) {
    auto reply = verify(f, token, user.wrong_code(f.clock.value));
    BOOST_TEST(reply.body == kInvalidCode, "wrong answer " << i + 1);
  }
}

long long lock_mails(DbFixture& f, const MfaUser& user) {
  return f.count("SELECT COUNT(*) FROM svc_notification_log WHERE event = 'mfa-locked' AND recipient = '" + user.email +
                 "'");
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_fifth_wrong_answer_locks_longer_and_the_twentieth_for_a_day) {
  DbFixture f;
  f.clock.value = 1800000015;
  MfaUser user(f, "mfa-lock");
  const long long window = f.config.auth.login_window;
  const long long first = f.clock.value;

  std::string probe = user.mfa_token(f, kSite);  // asked before the login throttle may lock
  five_wrong(f, user);
  BOOST_TEST(verify(f, probe, user.code(f.clock.value, 0)).body == locked(60));
  BOOST_TEST(lock_mails(f, user) == 1);
  f.clock.value = first + 59;
  BOOST_TEST(verify(f, user.mfa_token(f, kSite), user.code(f.clock.value, 0)).body == locked(1));

  f.clock.value = first + 60;  // the lock is over: five more wrong answers lock for twice as long
  probe = user.mfa_token(f, kSite);
  five_wrong(f, user);
  BOOST_TEST(verify(f, probe, user.code(f.clock.value, 0)).body == locked(120));

  f.clock.value = first + window + 1;
  probe = user.mfa_token(f, kSite);
  five_wrong(f, user);
  BOOST_TEST(verify(f, probe, user.code(f.clock.value, 0)).body == locked(240));

  const long long last = first + 2 * (window + 1);
  f.clock.value = last;
  probe = user.mfa_token(f, kSite);
  five_wrong(f, user);  // the 20th: locked until the first five are 24 h old
  BOOST_TEST(verify(f, probe, user.code(f.clock.value, 0)).body == locked(first + 86400 - last));
  f.clock.value = first + 86399;
  const std::string token = user.mfa_token(f, kSite);
  BOOST_TEST(verify(f, token, user.code(f.clock.value, 0)).body == locked(1));
  BOOST_TEST(lock_mails(f, user) == 4);

  f.clock.value = first + 86400;  // 15 wrong answers left in the day, the last lock long over
  auto ok = verify(f, token, user.code(f.clock.value, 0));
  BOOST_TEST(ok.status == 200, ok.body);
}

// A right recovery code and the bearer routes that take a code of the factor
// (disable, new recovery codes) obey the same lock, and their wrong codes
// count toward it.
BOOST_AUTO_TEST_CASE(recovery_codes_and_the_bearer_routes_share_the_lock) {
  DbFixture f;
  f.clock.value = 1800000015;
  MfaUser user(f, "mfa-lock-bearer");
  auto session = verify(f, user.mfa_token(f, kSite), user.code(f.clock.value, 0));
  BOOST_REQUIRE_EQUAL(session.status, 200);
  // The account token: the only kind the account routes take (issue 36 item 4).
  const std::string access = session.body.substr(session.body.find("\"account_token\":\"") + 17);
  const std::string bearer = "Bearer " + access.substr(0, access.find('"'));
  auto codes = f.post("/auth/mfa/recovery-codes", R"({"code":")" + user.code(f.clock.value, 1) + R"("})",
                      {{"authorization", bearer}});
  BOOST_REQUIRE_EQUAL(codes.status, 200);
  const std::string recovery = codes.body.substr(codes.body.find("\"recovery_codes\":[\"") + 19, 11);

  const std::string wrong = R"({"code":")" + user.wrong_code(f.clock.value) + R"("})";
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST(f.post("/auth/mfa/disable", wrong, {{"authorization", bearer}}).status == 400);
  }
  auto fifth = verify(f, user.mfa_token(f, kSite), user.wrong_code(f.clock.value));
  BOOST_TEST(fifth.body == kInvalidCode);

  auto by_recovery = f.post("/auth/mfa/verify", R"({"mfa_token":")" + user.mfa_token(f, kSite) +
                                                    R"(","recovery_code":")" + recovery + R"("})");
  BOOST_TEST(by_recovery.body == locked(60));
  auto disable =
      f.post("/auth/mfa/disable", R"({"code":")" + user.code(f.clock.value, 1) + R"("})", {{"authorization", bearer}});
  BOOST_TEST(disable.status == 429);
  BOOST_TEST(disable.body == locked(60));
  f.clock.value += 60;
  by_recovery = f.post("/auth/mfa/verify",
                       R"({"mfa_token":")" + user.mfa_token(f, kSite) + R"(","recovery_code":")" + recovery + R"("})");
  BOOST_TEST(by_recovery.status == 200, by_recovery.body);
}

// Wrong answers are pruned when an answer is taken back (a right one here):
// the user's rows older than the day go with it, the day's stay counted.
BOOST_AUTO_TEST_CASE(a_right_answer_forgets_wrong_answers_older_than_a_day) {
  DbFixture f;
  f.clock.value = 1800000015;
  MfaUser user(f, "mfa-lock-prune");
  auto rows = [&] {
    return f.count("SELECT COUNT(*) FROM svc_mfa_wrong_answers WHERE auth_table = '" + user.table.str() +
                   "' AND user_id = " + std::to_string(user.user_id));
  };
  BOOST_TEST(verify(f, user.mfa_token(f, kSite), user.wrong_code(f.clock.value)).body == kInvalidCode);
  f.clock.value += 86400;
  BOOST_TEST(verify(f, user.mfa_token(f, kSite), user.wrong_code(f.clock.value)).body == kInvalidCode);
  BOOST_TEST(rows() == 2);  // a wrong answer prunes nothing
  auto ok = verify(f, user.mfa_token(f, kSite), user.code(f.clock.value, 0));
  BOOST_TEST(ok.status == 200, ok.body);
  BOOST_TEST(rows() == 1);  // the first is a day old: gone; the second still counts
}

// What a sign-in with a TOTP factor costs in statements (issue 52), with a
// worker's caches. The password step: the throttle's claim, the user with
// whether a factor and a passkey guard it, the throttle's release, the audit
// row, the challenge. The verify: the challenge's try, the challenge with
// the factor, the user, the wrong answer counted, those before it, the login
// throttle's claim, the factor's step, the answer taken back, the challenge
// spent, the throttle reset, the audit row, the session.
BOOST_AUTO_TEST_CASE(a_sign_in_with_a_second_factor_reads_the_factor_with_the_challenge) {
  DbFixture f;
  WorkerCaches caches(f);
  f.clock.value = 1800000015;
  MfaUser user(f, "mfa-lock-statements");
  BOOST_TEST(verify(f, user.mfa_token(f, kSite), user.code(f.clock.value, 0)).status == 200);  // prepares
  f.clock.value += 30;
  std::string token;
  BOOST_TEST(f.raised("QUESTIONS", [&] { token = user.mfa_token(f, kSite); }) == 5);
  svc::http::Response reply;
  BOOST_TEST(f.raised("QUESTIONS", [&] { reply = verify(f, token, user.code(f.clock.value, 0)); }) == 12);
  BOOST_TEST(reply.status == 200, reply.body);
}

// The login throttle around the second step: a right password that still
// needs the second factor takes its own count back (its row goes when the
// attempt was the only one, so the verify's claim creates a fresh one), an
// earlier wrong password still counts, and a finished login clears it.
BOOST_AUTO_TEST_CASE(a_right_password_takes_back_its_own_throttle_count_and_keeps_earlier_failures) {
  DbFixture f;
  MfaUser user(f, "mfa-throttle");
  const std::string key = "auth_table = '" + user.table.str() + "' AND email = '" + user.email + "'";
  auto failures = [&] { return f.count("SELECT COALESCE(SUM(failures), -1) FROM svc_login_throttle WHERE " + key); };

  std::string token = user.mfa_token(f, kSite);
  BOOST_TEST(failures() == -1);  // no row: the attempt was the only one
  auto wrong = f.post("/auth/login", R"({"email":")" + user.email + R"(","password":"Not@the2026pass","appID":1})");
  BOOST_TEST(wrong.status == 401);
  BOOST_TEST(failures() == 1);
  token = user.mfa_token(f, kSite);
  BOOST_TEST(failures() == 1);  // the wrong password still counts, the right one does not
  BOOST_TEST(verify(f, token, user.wrong_code(f.clock.value)).body == kInvalidCode);
  BOOST_TEST(failures() == 2);
  f.clock.value += 30;
  BOOST_TEST(verify(f, token, user.code(f.clock.value, 0)).status == 200);
  BOOST_TEST(failures() == -1);
}

BOOST_AUTO_TEST_SUITE_END()
