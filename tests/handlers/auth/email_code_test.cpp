// POST /auth/email-code and /auth/email-code/verify with a scripted
// ctx.random and a fixed clock, against the stack's database: the code in
// the queued mail is the drawn value; it signs in once (amr ["otp"], the
// address becomes verified) and every refusal has one reply; the resend
// rule, the expiry, the binding to the site and the per-user daily caps on
// codes sent and on wrong guesses (rolling 24 h, across codes) hold on the
// fixed clock, and an address nobody has gets the same reply and no mail.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <ctime>
#include <string>

#include "db/site_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(email_code_test)

namespace {

const std::string kRefused = R"({"status":"Failed","message":"Invalid or expired code"})";

std::string unique(const char* tag) {
  static int serial = 0;
  static const std::string run = std::to_string(::getpid()) + std::to_string(std::time(nullptr) % 100000);
  return std::string(tag) + "." + run + std::to_string(++serial) + "@example.com";
}

std::string sent_reply(const std::string& email) {
  return R"({"status":"Success","message":"A sign-in code has been sent to )" + email + R"("})";
}

// A fresh active user of the first auth table, and site 1 (the stack's demo
// site, active and sending e-mail) unless told otherwise.
struct CodeUser {
  CodeUser(DbFixture& fixture, const char* tag) : f(fixture), email(unique(tag)) {
    svc::db::NewUser fresh;
    fresh.email = email;
    fresh.password_hash = "!";  // never logs in with a password
    auto table = svc::db::allowlisted(fixture.config.auth.tables.front(), fixture.config.auth.tables);
    auto inserted = svc::db::UserRepo(fixture.db, *table).insert(fresh);
    BOOST_REQUIRE(inserted);
    id = *inserted;
  }
  svc::http::Response ask(long long site = 1) {
    return f.post("/auth/email-code", R"({"email":")" + email + R"(","appID":)" + std::to_string(site) + "}");
  }
  svc::http::Response verify(const std::string& code, long long site = 1) {
    return f.post("/auth/email-code/verify",
                  R"({"email":")" + email + R"(","appID":)" + std::to_string(site) + R"(,"code":")" + code + R"("})");
  }
  long long mails() {
    return f.count("SELECT COUNT(*) FROM svc_notification_log WHERE event = 'email-code' AND recipient = '" + email +
                   "'");
  }
  std::string newest_body() {
    auto body = f.db.one(
        "SELECT body FROM svc_notification_log WHERE recipient = ? ORDER BY id DESC LIMIT 1",
        [&](svc::db::Params& p) { p.text(email); }, [](svc::db::RowReader& r) { return r.text(); });
    return body.value_or("");
  }
  DbFixture& f;
  std::string email;
  long long id = 0;
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_mailed_code_signs_in_once_and_every_refusal_looks_alike) {
  DbFixture f;
  CodeUser user(f, "ecode-once");
  f.random.values = {42};
  auto sent = user.ask();
  BOOST_CHECK_EQUAL(sent.status, 200);
  BOOST_CHECK_EQUAL(sent.body, sent_reply(user.email));
  BOOST_CHECK_EQUAL(user.mails(), 1);
  BOOST_CHECK_NE(user.newest_body().find("<strong>000042</strong>"), std::string::npos);

  auto wrong = user.verify("000043");
  BOOST_CHECK_EQUAL(wrong.status, 401);
  BOOST_CHECK_EQUAL(wrong.body, kRefused);

  auto right = user.verify("000042");
  BOOST_CHECK_EQUAL(right.status, 200);
  BOOST_CHECK_NE(right.body.find(R"("access_token":")"), std::string::npos);
  BOOST_CHECK_EQUAL(f.count("SELECT COUNT(*) FROM svc_users WHERE id = " + std::to_string(user.id) +
                            " AND email_verified_at IS NOT NULL"),
                    1);

  auto again = user.verify("000042");
  BOOST_CHECK_EQUAL(again.status, 401);
  BOOST_CHECK_EQUAL(again.body, kRefused);
}

BOOST_AUTO_TEST_CASE(an_unknown_address_gets_the_same_reply_and_no_mail_or_code) {
  DbFixture f;
  const std::string nobody = unique("ecode-nobody");
  f.random.values = {42};
  auto sent = f.post("/auth/email-code", R"({"email":")" + nobody + R"(","appID":1})");
  BOOST_CHECK_EQUAL(sent.status, 200);
  BOOST_CHECK_EQUAL(sent.body, sent_reply(nobody));
  BOOST_CHECK_EQUAL(f.count("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = '" + nobody + "'"), 0);
  BOOST_CHECK_EQUAL(f.count("SELECT COUNT(*) FROM svc_email_codes WHERE user_id = 0"), 0);
  auto verify = f.post("/auth/email-code/verify", R"({"email":")" + nobody + R"(","appID":1,"code":"000042"})");
  BOOST_CHECK_EQUAL(verify.status, 401);
  BOOST_CHECK_EQUAL(verify.body, kRefused);
}

BOOST_AUTO_TEST_CASE(a_resend_inside_a_minute_sends_nothing_and_the_first_code_stays) {
  DbFixture f;
  CodeUser user(f, "ecode-resend");
  f.random.values = {111111};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);
  f.clock.value += 59;
  f.random.values = {222222};
  auto second = user.ask();
  BOOST_CHECK_EQUAL(second.status, 200);  // the same reply: it tells nobody whether a mail went out
  BOOST_CHECK_EQUAL(second.body, sent_reply(user.email));
  BOOST_CHECK_EQUAL(user.mails(), 1);
  BOOST_CHECK_EQUAL(user.verify("222222").body, kRefused);
  f.clock.value += 2;  // 61 s after the first: a new code replaces it
  f.random.values = {333333};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);
  BOOST_CHECK_EQUAL(user.mails(), 2);
  BOOST_CHECK_EQUAL(user.verify("111111").body, kRefused);
  BOOST_CHECK_EQUAL(user.verify("333333").status, 200);
}

BOOST_AUTO_TEST_CASE(a_code_expires_after_its_ttl_and_allows_five_tries) {
  DbFixture f;
  CodeUser user(f, "ecode-ttl");
  f.random.values = {424242};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);
  f.clock.value += f.config.auth.email_code.ttl;
  BOOST_CHECK_EQUAL(user.verify("424242").body, kRefused);

  f.clock.value += 61;
  f.random.values = {515151};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);
  for (int i = 0; i < f.config.auth.email_code.max_attempts; ++i) {
    BOOST_CHECK_EQUAL(user.verify("000001").status, 401);
  }
  BOOST_CHECK_EQUAL(user.verify("515151").body, kRefused);  // out of tries: the right code no longer counts
}

BOOST_AUTO_TEST_CASE(a_code_asked_for_one_site_does_not_sign_in_at_another) {
  DbFixture f;
  svc::db::Site other;
  other.name = "email-code-other-site";
  const long long site = svc::db::SiteRepo(f.db).create(other);
  CodeUser user(f, "ecode-site");
  f.random.values = {777777};
  BOOST_REQUIRE_EQUAL(user.ask(1).status, 200);
  BOOST_CHECK_EQUAL(user.verify("777777", site).body, kRefused);
  BOOST_CHECK_EQUAL(user.verify("777777", 1).status, 200);
}

BOOST_AUTO_TEST_CASE(codes_sent_per_day_are_capped_over_a_rolling_window) {
  DbFixture f;
  f.config.auth.email_code.max_sent_daily = 3;
  CodeUser user(f, "ecode-daily-sent");
  const long long first = f.clock.value;
  for (int i = 0; i < 3; ++i) {
    f.random.values = {static_cast<std::uint32_t>(100000 + i)};
    BOOST_REQUIRE_EQUAL(user.ask().status, 200);
    f.clock.value += 61;  // past the resend rule
  }
  BOOST_CHECK_EQUAL(user.mails(), 3);
  auto capped = user.ask();
  BOOST_CHECK_EQUAL(capped.status, 200);
  BOOST_CHECK_EQUAL(capped.body, sent_reply(user.email));
  BOOST_CHECK_EQUAL(user.mails(), 3);

  f.clock.value = first + 86400 - 1;  // the first code is still inside the window
  BOOST_CHECK_EQUAL(user.ask().status, 200);
  BOOST_CHECK_EQUAL(user.mails(), 3);
  f.clock.value += 1;  // now it has left it: one more goes out
  f.random.values = {654321};
  BOOST_CHECK_EQUAL(user.ask().status, 200);
  BOOST_CHECK_EQUAL(user.mails(), 4);
  BOOST_CHECK_EQUAL(user.verify("654321").status, 200);
}

BOOST_AUTO_TEST_CASE(wrong_guesses_per_day_are_capped_across_codes) {
  DbFixture f;
  f.config.auth.email_code.max_wrong_daily = 4;
  CodeUser user(f, "ecode-daily-wrong");
  const long long first_wrong = f.clock.value;
  f.random.values = {100001};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);
  for (int i = 0; i < 3; ++i) BOOST_CHECK_EQUAL(user.verify("999999").status, 401);
  f.clock.value += 61;
  f.random.values = {100002};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);              // a new code: its 5 tries do not reset the day's count
  BOOST_CHECK_EQUAL(user.verify("999999").status, 401);     // the 4th wrong guess of the day
  BOOST_CHECK_EQUAL(user.verify("100002").body, kRefused);  // capped: even the right code is not heard

  f.clock.value = first_wrong + 86400;                      // the first three have left the window
  BOOST_CHECK_EQUAL(user.verify("100002").body, kRefused);  // that code has expired meanwhile
  f.random.values = {100003};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);
  BOOST_CHECK_EQUAL(user.verify("100003").status, 200);
}

BOOST_AUTO_TEST_CASE(a_malformed_request_costs_no_try) {
  DbFixture f;
  CodeUser user(f, "ecode-malformed");
  f.random.values = {246810};
  BOOST_REQUIRE_EQUAL(user.ask().status, 200);
  for (const char* bad : {"12345", "1234567", "12a456", ""}) {
    auto reply = user.verify(bad);
    BOOST_CHECK_EQUAL(reply.status, 400);
    BOOST_CHECK_NE(reply.body.find(R"("field":"code")"), std::string::npos);
  }
  auto missing = f.post("/auth/email-code", "{}");
  BOOST_CHECK_EQUAL(missing.status, 400);
  BOOST_CHECK_NE(missing.body.find(R"("field":"email")"), std::string::npos);
  BOOST_CHECK_NE(missing.body.find(R"("field":"appID")"), std::string::npos);
  BOOST_CHECK_EQUAL(user.verify("246810").status, 200);
}

BOOST_AUTO_TEST_SUITE_END()
