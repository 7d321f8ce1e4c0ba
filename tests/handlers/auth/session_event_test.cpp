// session.created of a password login and of a second factor's verify
// (issue 52): the sign-in's first read (the user, or the challenge) also
// tells whether the site has an enabled endpoint subscribed to the event.
// With one, the session and its event commit in one transaction, as every
// event does; without, the session row is written alone, with no
// transaction. Counted on the fixture's own connection (COMMITs it ran),
// with the queued deliveries and the session rows as the outcome.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>

#include "db/site_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db/webhook_repo.hpp"
#include "db_fixture.hpp"
#include "mfa_user.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(session_event_test)

namespace {

const std::string kPassword = "Session@2026event";

// A site of its own, so no other test's endpoint counts.
struct EventSite {
  explicit EventSite(DbFixture& fixture) : f(fixture) {
    svc::db::Site s;
    s.name = "session-event-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand());
    id = svc::db::SiteRepo(f.db).create(s);
    BOOST_REQUIRE_GT(id, 0);
  }
  ~EventSite() {
    const std::string site = std::to_string(id);
    f.exec("DELETE FROM svc_webhook_deliveries WHERE site_id = " + site);
    f.exec("DELETE FROM svc_webhook_endpoints WHERE site_id = " + site);
    f.exec("DELETE FROM svc_sessions WHERE site_id = " + site);
    f.exec("DELETE FROM svc_sites WHERE id = " + site);
  }
  long long endpoint(const std::string& events) {
    return svc::db::WebhookRepo(f.db).add_endpoint(id, "https://hooks.example.com/" + std::to_string(std::rand()),
                                                   events, "sealed");
  }
  long long deliveries(long long endpoint, const std::string& event) {
    return f.count("SELECT COUNT(*) FROM svc_webhook_deliveries WHERE endpoint_id = " + std::to_string(endpoint) +
                   " AND event_type = '" + event + "'");
  }
  long long sessions(long long user_id) {
    return f.count("SELECT COUNT(*) FROM svc_sessions WHERE site_id = " + std::to_string(id) +
                   " AND user_id = " + std::to_string(user_id));
  }
  DbFixture& f;
  long long id = 0;
};

struct LoginUser {
  explicit LoginUser(DbFixture& f) {
    static int serial = 0;
    svc::db::NewUser u;
    u.email = "session-event." + std::to_string(::getpid()) + "." + std::to_string(++serial) + "@example.com";
    u.password_hash = f.hasher.hash(kPassword);
    auto table = svc::db::allowlisted(f.config.auth.tables.front(), f.config.auth.tables);
    auto made = svc::db::UserRepo(f.db, *table).insert(u);
    BOOST_REQUIRE(made);
    id = *made;
    email = u.email;
  }
  svc::http::Response login(DbFixture& f, long long site) const {
    return f.post("/auth/login", R"({"email":")" + email + R"(","password":")" + kPassword + R"(","appID":)" +
                                     std::to_string(site) + "}");
  }
  long long id = 0;
  std::string email;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_login_writes_its_session_alone_unless_an_endpoint_wants_session_created) {
  DbFixture f;
  EventSite site(f);
  LoginUser user(f);

  // No endpoint, then one for another event, then a disabled one: no
  // transaction, no delivery, the session is there.
  const long long other = site.endpoint("user.created");
  const long long disabled = site.endpoint("session.created");
  BOOST_REQUIRE(svc::db::WebhookRepo(f.db).set_enabled(disabled, false, "test"));
  svc::http::Response reply;
  BOOST_CHECK_EQUAL(f.raised("COM_COMMIT", [&] { reply = user.login(f, site.id); }), 0);
  BOOST_CHECK_EQUAL(reply.status, 200);
  BOOST_CHECK_EQUAL(site.sessions(user.id), 1);
  BOOST_CHECK_EQUAL(site.deliveries(other, "session.created") + site.deliveries(disabled, "session.created"), 0);

  // An endpoint for session.created: the event commits with the session.
  const long long wanted = site.endpoint("user.created,session.created");
  BOOST_CHECK_EQUAL(f.raised("COM_COMMIT", [&] { reply = user.login(f, site.id); }), 1);
  BOOST_CHECK_EQUAL(reply.status, 200);
  BOOST_CHECK_EQUAL(site.sessions(user.id), 2);
  BOOST_CHECK_EQUAL(site.deliveries(wanted, "session.created"), 1);
  BOOST_CHECK_EQUAL(site.deliveries(other, "session.created"), 0);
  BOOST_CHECK_EQUAL(f.count("SELECT COUNT(*) FROM svc_webhook_deliveries d JOIN svc_sessions s"
                            " ON s.id = JSON_VALUE(d.data, '$.session_id') WHERE d.endpoint_id = " +
                            std::to_string(wanted) + " AND s.user_id = " + std::to_string(user.id)),
                    1);
}

BOOST_AUTO_TEST_CASE(a_second_factors_verify_asks_its_challenges_site_the_same) {
  DbFixture f;
  EventSite site(f);
  svc::testing::MfaUser user(f, "session-event-mfa");
  auto verify = [&] {
    const std::string token = user.mfa_token(f, site.id);
    f.clock.value += 30;  // each verify a step of its own
    return f.post("/auth/mfa/verify",
                  R"({"mfa_token":")" + token + R"(","code":")" + user.code(f.clock.value, 0) + R"("})");
  };
  svc::http::Response reply;
  BOOST_CHECK_EQUAL(f.raised("COM_COMMIT", [&] { reply = verify(); }), 0);
  BOOST_CHECK_EQUAL(reply.status, 200);
  BOOST_CHECK_EQUAL(site.sessions(user.user_id), 1);

  const long long wanted = site.endpoint("session.created");
  BOOST_CHECK_EQUAL(f.raised("COM_COMMIT", [&] { reply = verify(); }), 1);
  BOOST_CHECK_EQUAL(reply.status, 200);
  BOOST_CHECK_EQUAL(site.sessions(user.user_id), 2);
  BOOST_CHECK_EQUAL(site.deliveries(wanted, "session.created"), 1);
}

BOOST_AUTO_TEST_SUITE_END()
