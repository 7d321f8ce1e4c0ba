// Login runs exactly one password verification per attempt, user or no user,
// so response time does not tell which e-mails are registered. Checked by
// counting, not by timing.
#include <boost/test/unit_test.hpp>

#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(login_timing_test)

namespace {

std::string fresh_email(const char* tag) {
  return std::string(tag) + "." + std::to_string(::getpid()) + "." + std::to_string(std::rand()) + "@example.com";
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_verification_per_attempt_whether_or_not_the_user_exists) {
  DbFixture f;
  std::string email = fresh_email("timing");
  std::string body = R"({"email":")" + email + R"(","password":"Right@Pass1"})";
  BOOST_REQUIRE_EQUAL(f.post("/auth/sign-up", body).status, 200);

  struct Case {
    std::string email, password;
    int status;
  };
  const Case cases[] = {
      {email, "Right@Pass1", 200},
      {email, "Wrong@Pass1", 401},
      {fresh_email("nobody"), "Right@Pass1", 401},
      {fresh_email("nobody"), "Wrong@Pass1", 401},
  };
  for (const auto& c : cases) {
    f.hasher.verifications = 0;
    auto r = f.post("/auth/login", R"({"email":")" + c.email + R"(","password":")" + c.password + R"("})");
    BOOST_TEST_CONTEXT(c.email << " / " << c.password) {
      BOOST_CHECK_EQUAL(r.status, c.status);
      BOOST_CHECK_EQUAL(f.hasher.verifications, 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_user_and_wrong_password_get_identical_bodies) {
  DbFixture f;
  std::string email = fresh_email("same");
  BOOST_REQUIRE_EQUAL(f.post("/auth/sign-up", R"({"email":")" + email + R"(","password":"Right@Pass1"})").status, 200);
  auto wrong = f.post("/auth/login", R"({"email":")" + email + R"(","password":"Wrong@Pass1"})");
  auto unknown = f.post("/auth/login", R"({"email":")" + fresh_email("ghost") + R"(","password":"Wrong@Pass1"})");
  BOOST_CHECK_EQUAL(wrong.status, unknown.status);
  BOOST_CHECK_EQUAL(wrong.body, unknown.body);
}

BOOST_AUTO_TEST_CASE(validation_errors_run_no_verification) {
  DbFixture f;
  f.hasher.verifications = 0;
  auto r = f.post("/auth/login", R"({"email":"not-an-address","password":"short"})");
  BOOST_CHECK_EQUAL(r.status, 400);
  BOOST_CHECK_EQUAL(f.hasher.verifications, 0);
  std::string huge(1025, 'a');
  r = f.post("/auth/login", R"({"email":"a@example.com","password":")" + huge + R"("})");
  BOOST_CHECK_EQUAL(r.status, 400);
  BOOST_CHECK_EQUAL(f.hasher.verifications, 0);
}

BOOST_AUTO_TEST_SUITE_END()
