// POST /auth/user-sms-code and /auth/verify-sms-code with a scripted
// ctx.random and a recording SMS gateway, against the stack's database: the
// code in the SMS is exactly the drawn value, zero-padded to 6 digits; that
// code verifies once, a wrong one is refused with the attempts left; the
// resend rule answers 429 with retry_after counted on the fixed clock; a code
// the gateway refused is never valid.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <ctime>
#include <string>

#include "crypto/sealed_id.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(sms_code_test)

namespace {

const std::string kSent = R"({"status":"Success","message":"SMS code sent successfully"})";
const std::string kVerified = R"({"status":"Success","message":"SMS code verified"})";
const std::string kDead = R"({"status":"Failed","message":"Code expired or invalid","attempts_left":0})";
const std::string kGeneric = R"({"status":"Failed","message":"An error occurred while processing your request"})";

std::string invalid_code(int left) {
  return R"({"status":"Failed","message":"Invalid code","attempts_left":)" + std::to_string(left) + "}";
}

// A fresh user of the first auth table with its own mobile; holds the
// encrypted userId the endpoints take.
struct SmsUser {
  SmsUser(DbFixture& f, const char* tag) {
    static int serial = 0;
    // Unique across runs on one stack (pid and start time) and within one.
    static const std::string run = std::to_string(::getpid()) + std::to_string(std::time(nullptr) % 100000);
    std::string unique = run + std::to_string(++serial);
    svc::db::NewUser fresh;
    fresh.email = std::string(tag) + "." + unique + "@example.com";
    fresh.password_hash = "!";  // can never log in; these tests only need the mobile
    fresh.mobile = "+1" + unique;
    mobile = fresh.mobile;
    table = f.config.auth.tables.front();
    auto inserted = svc::db::UserRepo(f.db, *svc::db::allowlisted(table, f.config.auth.tables)).insert(fresh);
    BOOST_REQUIRE(inserted);
    id = *inserted;
    renew(f);
  }
  // A fresh encrypted userId, valid for an hour from the fixed clock's now
  // (for tests that move the clock by a day).
  void renew(DbFixture& f) {
    token = svc::crypto::seal_id(id, f.clock.now() + 3600, svc::crypto::IdPurpose::User, f.config.keys.id_key);
  }
  std::string send_body() const { return R"({"userId":")" + token + R"("})"; }
  std::string verify_body(const std::string& code) const {
    return R"({"userId":")" + token + R"(","code":")" + code + R"("})";
  }
  long long id = 0;
  std::string table, mobile, token;
};

// The configured [sms] message with its [code] placeholder filled in.
std::string sms_text(const DbFixture& f, const std::string& code) {
  std::string text = f.config.sms.message;
  text.replace(text.find("[code]"), 6, code);
  return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_sms_carries_the_drawn_value_zero_padded) {
  DbFixture f;
  BOOST_REQUIRE_NE(f.config.sms.message.find("[code]"), std::string::npos);
  struct Case {
    std::uint32_t drawn;
    const char* code;
  };
  const Case cases[] = {{42, "000042"}, {0, "000000"}, {7, "000007"}, {123456, "123456"}, {999999, "999999"}};
  SmsUser user(f, "sms-pad");
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("drawn " << c.drawn) {
      f.clock.value += 61;  // past the resend rule of the previous case
      f.random.values = {c.drawn};
      auto sent = f.post("/auth/user-sms-code", user.send_body());
      BOOST_CHECK_EQUAL(sent.status, 200);
      BOOST_CHECK_EQUAL(sent.body, kSent);
      BOOST_CHECK_EQUAL(f.sms.last_to, user.mobile);
      BOOST_CHECK_EQUAL(f.sms.last_text, sms_text(f, c.code));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_sent_code_verifies_once_and_a_wrong_one_is_refused) {
  DbFixture f;
  SmsUser user(f, "sms-verify");
  f.random.values = {42};
  auto sent = f.post("/auth/user-sms-code", user.send_body());
  BOOST_REQUIRE_EQUAL(sent.status, 200);
  BOOST_CHECK_EQUAL(f.sms.sent, 1);
  BOOST_CHECK_EQUAL(f.sms.last_text, sms_text(f, "000042"));

  auto wrong = f.post("/auth/verify-sms-code", user.verify_body("000043"));
  BOOST_CHECK_EQUAL(wrong.status, 400);
  BOOST_CHECK_EQUAL(wrong.body, invalid_code(4));

  auto right = f.post("/auth/verify-sms-code", user.verify_body("000042"));
  BOOST_CHECK_EQUAL(right.status, 200);
  BOOST_CHECK_EQUAL(right.body, kVerified);

  auto again = f.post("/auth/verify-sms-code", user.verify_body("000042"));
  BOOST_CHECK_EQUAL(again.status, 400);
  BOOST_CHECK_EQUAL(again.body, kDead);
}

BOOST_AUTO_TEST_CASE(a_resend_inside_the_window_is_429_with_the_seconds_left) {
  DbFixture f;
  SmsUser user(f, "sms-resend");
  f.random.values = {111111, 222222};
  BOOST_REQUIRE_EQUAL(f.post("/auth/user-sms-code", user.send_body()).status, 200);
  f.clock.value += 20;
  auto again = f.post("/auth/user-sms-code", user.send_body());
  BOOST_CHECK_EQUAL(again.status, 429);
  BOOST_CHECK_EQUAL(again.body, R"({"status":"Failed","message":"Too many requests","retry_after":40})");
  BOOST_CHECK_EQUAL(f.sms.sent, 1);
  // The first code is still the valid one.
  BOOST_CHECK_EQUAL(f.post("/auth/verify-sms-code", user.verify_body("222222")).body, invalid_code(4));
  BOOST_CHECK_EQUAL(f.post("/auth/verify-sms-code", user.verify_body("111111")).body, kVerified);
}

BOOST_AUTO_TEST_CASE(a_code_the_gateway_refused_is_never_valid) {
  DbFixture f;
  SmsUser user(f, "sms-gateway");
  f.random.values = {424242, 515151};
  f.sms.ok = false;
  auto failed = f.post("/auth/user-sms-code", user.send_body());
  BOOST_CHECK_EQUAL(failed.status, 500);
  BOOST_CHECK_EQUAL(failed.body, kGeneric);
  BOOST_CHECK_EQUAL(f.sms.last_text, sms_text(f, "424242"));
  BOOST_CHECK_EQUAL(f.post("/auth/verify-sms-code", user.verify_body("424242")).body, kDead);

  // Nothing holds the resend window: an immediate retry goes out with a new code.
  f.sms.ok = true;
  BOOST_REQUIRE_EQUAL(f.post("/auth/user-sms-code", user.send_body()).status, 200);
  BOOST_CHECK_EQUAL(f.sms.last_text, sms_text(f, "515151"));
  BOOST_CHECK_EQUAL(f.post("/auth/verify-sms-code", user.verify_body("424242")).body, invalid_code(4));
  BOOST_CHECK_EQUAL(f.post("/auth/verify-sms-code", user.verify_body("515151")).body, kVerified);
}

BOOST_AUTO_TEST_CASE(a_user_without_mobile_draws_no_code) {
  DbFixture f;
  SmsUser user(f, "sms-nomobile");
  f.exec("UPDATE " + user.table + " SET mobile = NULL WHERE id = " + std::to_string(user.id));
  f.random.values = {42};
  auto r = f.post("/auth/user-sms-code", user.send_body());
  BOOST_CHECK_EQUAL(r.status, 400);
  BOOST_CHECK_EQUAL(r.body, R"({"status":"Failed","message":"Mobile number missing"})");
  BOOST_CHECK_EQUAL(f.sms.sent, 0);
  BOOST_CHECK_EQUAL(f.random.values.size(), 1u);
}

// Issue 22: the per-code cap alone let a resend every 60 s bring 5 fresh
// guesses, forever. Per user over a rolling 24 h, at most
// sms_max_sent_daily codes go out and sms_max_wrong_daily wrong guesses are
// heard, across codes; counted on the fixed clock.
BOOST_AUTO_TEST_CASE(codes_sent_per_day_are_capped_over_a_rolling_window) {
  DbFixture f;
  f.config.auth.sms.max_sent_daily = 5;
  SmsUser user(f, "sms-daily-sent");
  const long long first = f.clock.value;
  for (int i = 0; i < 5; ++i) {
    BOOST_TEST_CONTEXT("code " << i + 1) {
      BOOST_CHECK_EQUAL(f.post("/auth/user-sms-code", user.send_body()).body, kSent);
      f.clock.value += 61;  // past the resend rule
    }
  }
  auto capped = f.post("/auth/user-sms-code", user.send_body());
  BOOST_CHECK_EQUAL(capped.status, 429);
  const long long wait = first + 86400 - f.clock.value;
  BOOST_CHECK_EQUAL(capped.body,
                    R"({"status":"Failed","message":"Too many requests","retry_after":)" + std::to_string(wait) + "}");
  BOOST_CHECK_EQUAL(f.sms.sent, 5);
  f.clock.value += wait - 1;  // the first code is still inside the window
  user.renew(f);
  BOOST_CHECK_EQUAL(f.post("/auth/user-sms-code", user.send_body()).status, 429);
  f.clock.value += 1;  // now it has left it: one more code may go out
  BOOST_CHECK_EQUAL(f.post("/auth/user-sms-code", user.send_body()).body, kSent);
  BOOST_CHECK_EQUAL(f.sms.sent, 6);
}

BOOST_AUTO_TEST_CASE(wrong_guesses_per_day_are_capped_across_codes) {
  DbFixture f;
  f.config.auth.sms.max_attempts = 5;
  f.config.auth.sms.max_wrong_daily = 10;
  SmsUser user(f, "sms-daily-wrong");
  const long long first_wrong = f.clock.value;
  // Two codes, five wrong guesses each: the second code's countdown is the
  // day's as well, and ends at 0 with the tenth wrong guess.
  for (std::uint32_t round = 0; round < 2; ++round) {
    f.random.values = {100000 + round};
    BOOST_REQUIRE_EQUAL(f.post("/auth/user-sms-code", user.send_body()).status, 200);
    for (int k = 1; k <= 5; ++k) {
      auto wrong = f.post("/auth/verify-sms-code", user.verify_body("99999" + std::to_string(k)));
      BOOST_CHECK_EQUAL(wrong.body, invalid_code(5 - k));
    }
    f.clock.value += 61;
  }
  // A third code goes out, but no guess is heard, not even the right one.
  f.random.values = {123456};
  BOOST_REQUIRE_EQUAL(f.post("/auth/user-sms-code", user.send_body()).status, 200);
  const long long wait = first_wrong + 86400 - f.clock.value;
  const std::string capped = R"({"status":"Failed","message":"Too many attempts","attempts_left":0,"retry_after":)" +
                             std::to_string(wait) + "}";
  auto right = f.post("/auth/verify-sms-code", user.verify_body("123456"));
  BOOST_CHECK_EQUAL(right.status, 429);
  BOOST_CHECK_EQUAL(right.body, capped);
  BOOST_CHECK_EQUAL(f.count("SELECT attempts FROM svc_sms_codes WHERE user_id = " + std::to_string(user.id)), 0);
  // A second before the first wrong guesses leave the window (the third
  // code has expired by then: a fresh one), still nothing is heard; a
  // second later the fresh code verifies.
  f.clock.value += wait - 1;
  user.renew(f);
  f.random.values = {654321};
  BOOST_REQUIRE_EQUAL(f.post("/auth/user-sms-code", user.send_body()).status, 200);
  BOOST_CHECK_EQUAL(f.post("/auth/verify-sms-code", user.verify_body("654321")).body,
                    R"({"status":"Failed","message":"Too many attempts","attempts_left":0,"retry_after":1})");
  f.clock.value += 1;
  BOOST_CHECK_EQUAL(f.post("/auth/verify-sms-code", user.verify_body("654321")).body, kVerified);
}

BOOST_AUTO_TEST_SUITE_END()
