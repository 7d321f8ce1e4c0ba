// auth::session_reply: the one writer of the login and sign-up success
// replies. Login's user object carries "role", sign-up's does not (spec:
// "User profile"); everything else is byte-for-byte the same.
#include <boost/test/unit_test.hpp>
#include <string>

#include "auth/tokens/tokens.hpp"

using svc::auth::Profile;
using svc::auth::Session;

BOOST_AUTO_TEST_SUITE(session_reply_test)

namespace {

Session sample() {
  Session s;
  s.user.id = 42;
  s.user.email = "ada@example.com";
  s.user.first_name = "Ada";
  s.user.last_name = "Lovelace \"Byron\"";
  s.user.role = "admin";
  s.user.password = "$argon2id$never-written";
  s.user.mobile = "+15550000000";
  s.tokens = {"A.B.C", "D.E.F", "", ""};  // no account token (nor sid): the members stay as the spec has them
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(login_and_sign_up_shapes) {
  struct Case {
    Profile profile;
    std::string body;
  };
  const Case cases[] = {
      {Profile::kWithRole,
       R"({"status":"Success","token":{"access_token":"A.B.C","refresh_token":"D.E.F",)"
       R"("user":{"id":42,"email":"ada@example.com","firstName":"Ada","lastName":"Lovelace \"Byron\"",)"
       R"("role":"admin"}}})"},
      {Profile::kWithoutRole,
       R"({"status":"Success","token":{"access_token":"A.B.C","refresh_token":"D.E.F",)"
       R"("user":{"id":42,"email":"ada@example.com","firstName":"Ada","lastName":"Lovelace \"Byron\""}}})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("profile " << static_cast<int>(c.profile)) {
      auto reply = svc::auth::session_reply(sample(), c.profile);
      BOOST_CHECK_EQUAL(reply.status, 200);
      BOOST_CHECK_EQUAL(reply.body, c.body);
      BOOST_CHECK(reply.headers.empty());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
