// Passkey ceremonies with the fixed clock, against the stack's database: a
// challenge lives exactly 300 s and is spent by its first answer whatever
// the outcome; the sign counter is raised by one UPDATE, so a counter value
// is accepted once and never below the stored one (0 stays 0 only for an
// authenticator that keeps no counter).
#include <rapidjson/document.h>

#include <boost/test/unit_test.hpp>
#include <string>

#include "auth/passkey/service.hpp"
#include "db/passkey_repo.hpp"
#include "db_fixture.hpp"
#include "passkey_site.hpp"

using svc::testing::add_passkey;
using svc::testing::DbFixture;
using svc::testing::site_with_rp;
using svc::testing::unique;

BOOST_AUTO_TEST_SUITE(passkey_window_test)

namespace {

const std::string kExpired = R"({"status":"Failed","message":"Passkey challenge expired, start again"})";
const std::string kNotAccepted = R"({"status":"Failed","message":"Passkey not accepted"})";

std::string challenge_token(DbFixture& f, long long site) {
  auto reply = f.post("/auth/passkey/login/options", R"({"appID":)" + std::to_string(site) + "}");
  BOOST_REQUIRE_EQUAL(reply.status, 200);
  rapidjson::Document doc;
  doc.Parse(reply.body.c_str());
  return doc["challenge_token"].GetString();
}

// An answer in the right shape for a credential the site does not have.
std::string answer(const std::string& token) {
  return R"({"challenge_token":")" + token +
         R"(","credential":{"type":"public-key","id":"AAAA","rawId":"AAAA","response":{"clientDataJSON":"e30",)"
         R"("authenticatorData":"AAAA","signature":"AAAA"}}})";
}

}  // namespace

BOOST_AUTO_TEST_CASE(challenge_lives_300_seconds_and_is_spent_by_its_first_answer) {
  DbFixture f;
  const long long site = site_with_rp(f, "window.localhost");
  const long long start = f.clock.value;

  const std::string late = challenge_token(f, site);
  f.clock.value = start + svc::auth::passkey::kChallengeSeconds;
  auto reply = f.post("/auth/passkey/login", answer(late));
  BOOST_TEST(reply.status == 401);
  BOOST_TEST(reply.body == kExpired);

  f.clock.value = start;
  const std::string in_time = challenge_token(f, site);
  f.clock.value = start + svc::auth::passkey::kChallengeSeconds - 1;
  reply = f.post("/auth/passkey/login", answer(in_time));
  BOOST_TEST(reply.status == 401);
  BOOST_TEST(reply.body == kNotAccepted);  // looked at (and refused): the challenge was live
  reply = f.post("/auth/passkey/login", answer(in_time));
  BOOST_TEST(reply.body == kExpired);  // spent by the first answer
}

BOOST_AUTO_TEST_CASE(sign_count_is_raised_by_one_update) {
  DbFixture f;
  const long long site = site_with_rp(f, "window.localhost");
  svc::db::PasskeyRepo repo(f.db);
  auto add = [&](long long count) { return add_passkey(f, site, 1, "Passkey", count); };
  const long long counted = add(5);
  BOOST_TEST(!repo.record_use(counted, 5, false, f.clock.value));
  BOOST_TEST(!repo.record_use(counted, 4, false, f.clock.value));
  BOOST_TEST(repo.record_use(counted, 6, false, f.clock.value));
  BOOST_TEST(!repo.record_use(counted, 6, false, f.clock.value));  // the same value twice: one wins
  BOOST_TEST(!repo.record_use(counted, 0, false, f.clock.value));  // a counter that went back to 0

  const long long uncounted = add(0);
  BOOST_TEST(repo.record_use(uncounted, 0, true, f.clock.value));
  BOOST_TEST(repo.record_use(uncounted, 0, true, f.clock.value));  // no counter: nothing to compare
  BOOST_TEST(repo.record_use(uncounted, 1, true, f.clock.value));  // it starts counting
  BOOST_TEST(!repo.record_use(uncounted, 0, true, f.clock.value));
}

BOOST_AUTO_TEST_SUITE_END()
