// Login runs exactly one password verification per attempt, user or no user,
// so response time does not tell which e-mails are registered. Checked by
// counting, not by timing.
#include <boost/test/unit_test.hpp>

#include "db/table_name.hpp"
#include "db/user_repo.hpp"
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

// Issue 22: a refused login costs one Argon2id computation whatever the
// stored format. An Argon2id hash with older parameters used to cost its own
// verify plus the dummy (two); bcrypt and legacy AES are cheaper checks that
// the dummy completes; an unknown user gets the dummy alone.
BOOST_AUTO_TEST_CASE(every_refused_login_costs_one_argon2id_whatever_the_stored_format) {
  DbFixture f;
  BOOST_REQUIRE(!f.config.keys.legacy_password_key.empty());
  const std::string password = "Right@Pass1";
  svc::crypto::Argon2PasswordHasher older(svc::crypto::Argon2Params{2, 8192}, "");
  struct Case {
    const char* label;
    std::string stored;  // "" = no such user
  };
  const Case cases[] = {
      {"current Argon2id", f.hasher.hash(password)},
      {"Argon2id with older parameters", older.hash(password)},
      // PHP password_hash("Right@Pass1", PASSWORD_BCRYPT, ["cost" => 4])
      {"bcrypt", "$2y$04$qkPKW87jBbmB/m5Wd.s6TOXI86k5YyunY1wxwRSPgkTghxcfBGmU2"},
      {"legacy AES", svc::testing::php_aes_password(password, f.config.keys.legacy_password_key)},
      {"unknown user", ""},
  };
  const auto& table = f.config.auth.tables.front();
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.label) {
      std::string email = fresh_email("format");
      if (!c.stored.empty()) {
        svc::db::NewUser u;
        u.email = email;
        u.password_hash = c.stored;
        BOOST_REQUIRE(svc::db::UserRepo(f.db, *svc::db::allowlisted(table, f.config.auth.tables)).insert(u));
      }
      f.hasher.argon2_work = 0;
      f.hasher.verifications = 0;
      auto r = f.post("/auth/login", R"({"email":")" + email + R"(","password":"Wrong@Pass1"})");
      BOOST_CHECK_EQUAL(r.status, 401);
      BOOST_CHECK_EQUAL(f.hasher.argon2_work, 1);
      BOOST_CHECK_LE(f.hasher.verifications, 2);  // a cheaper check, then at most the dummy
      if (!c.stored.empty()) {                    // the right password still logs in
        f.hasher.argon2_work = 0;
        BOOST_CHECK_EQUAL(
            f.post("/auth/login", R"({"email":")" + email + R"(","password":")" + password + R"("})").status, 200);
      }
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
