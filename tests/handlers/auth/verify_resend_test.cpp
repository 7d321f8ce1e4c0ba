// POST /auth/verify-email/resend on the fixed clock, against the stack's
// database (issue 36, item 6): the e-mail codes' caps hold ([auth]
// email_code_resend_seconds between two mails, email_code_max_sent_daily
// over a rolling 24 h), and a site that does not verify addresses sends
// nothing; every request gets the same reply.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <ctime>
#include <string>

#include "db/site_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(verify_resend_test)

namespace {

// An active site sending e-mail, verifying addresses when `verify`.
long long make_site(DbFixture& f, bool verify) {
  svc::db::Site site;
  site.name = "resend caps";
  site.domain = "resend.example";
  site.email_from = "Resend <no-reply@resend.example>";
  const long long id = svc::db::SiteRepo(f.db).create(site);
  svc::db::SiteRepo(f.db).set_verify_email(id, verify);
  return id;
}

// A fresh active user of the first auth table whose address is not verified.
struct Unverified {
  explicit Unverified(DbFixture& fixture) : f(fixture) {
    static int serial = 0;
    static const std::string run = std::to_string(::getpid()) + std::to_string(std::time(nullptr) % 100000);
    email = "verify-resend." + run + std::to_string(++serial) + "@example.com";
    svc::db::NewUser fresh;
    fresh.email = email;
    fresh.password_hash = "!";
    auto table = svc::db::allowlisted(f.config.auth.tables.front(), f.config.auth.tables);
    BOOST_REQUIRE(svc::db::UserRepo(f.db, *table).insert(fresh));
  }
  // Asks for a new mail; every answer is the same 200.
  void resend(long long site) {
    auto reply =
        f.post("/auth/verify-email/resend", R"({"email":")" + email + R"(","appID":)" + std::to_string(site) + "}");
    BOOST_TEST(reply.status == 200);
    BOOST_TEST(reply.body ==
               R"({"status":"Success","message":"A verification e-mail has been sent to )" + email + R"("})");
  }
  long long mails() {
    return f.count("SELECT COUNT(*) FROM svc_notification_log WHERE event = 'verify-email' AND recipient = '" + email +
                   "'");
  }
  DbFixture& f;
  std::string email;
};

}  // namespace

BOOST_AUTO_TEST_CASE(one_mail_a_minute_and_ten_a_day) {
  DbFixture f;
  f.clock.value = 1800000000;
  const long long site = make_site(f, true);
  Unverified user(f);
  const auto& rules = f.config.auth.email_code;
  const long long first = f.clock.value;
  user.resend(site);
  BOOST_TEST(user.mails() == 1);
  f.clock.value = first + rules.resend_seconds - 1;
  user.resend(site);
  BOOST_TEST(user.mails() == 1);
  for (int sent = 1; sent < rules.max_sent_daily; ++sent) {
    f.clock.value = first + sent * rules.resend_seconds;
    user.resend(site);
  }
  BOOST_TEST(user.mails() == rules.max_sent_daily);
  f.clock.value = first + 86399;
  user.resend(site);
  BOOST_TEST(user.mails() == rules.max_sent_daily);
  f.clock.value = first + 86400;  // the first mail left the window
  user.resend(site);
  BOOST_TEST(user.mails() == rules.max_sent_daily + 1);
}

BOOST_AUTO_TEST_CASE(a_site_that_does_not_verify_addresses_sends_nothing) {
  DbFixture f;
  const long long site = make_site(f, false);
  Unverified user(f);
  user.resend(site);
  BOOST_TEST(user.mails() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
