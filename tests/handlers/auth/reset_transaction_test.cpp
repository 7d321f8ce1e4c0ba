// POST /auth/reset-pass stores the new password hash and revokes the refresh
// tokens (token_version + 1) in one transaction: when the second write fails
// (here a trigger refuses the token_version change, standing in for a crash
// between the two statements) the password is unchanged, and the same token
// still works once the fault is gone.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>

#include "crypto/password_hasher.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(reset_transaction_test)

namespace {

constexpr const char* kTable = "svc_staff";  // the stack's second auth table

struct ResetFixture {
  DbFixture f;
  std::string tag = std::to_string(::getpid()) + "_" + std::to_string(std::rand());
  std::string trigger = "reset_tx_test_" + tag;
  svc::db::UserRepo users{f.db, *svc::db::allowlisted(kTable, f.config.auth.tables)};
  long long user_id = 0;
  std::string old_hash;

  ResetFixture() {
    svc::db::NewUser u;
    u.email = "reset-tx-" + tag + "@example.com";
    u.password_hash = old_hash = f.hasher.hash("Old@Pass123");
    user_id = users.insert(u).value_or(0);
    BOOST_REQUIRE_GT(user_id, 0);
  }
  ~ResetFixture() {
    try {
      drop_fault();
      f.exec("DELETE FROM " + std::string(kTable) + " WHERE id = " + std::to_string(user_id));
    } catch (...) {
    }
  }

  // Refuses any token_version change of the test user (test setup only: the
  // trigger name and id are ours, no request text reaches this SQL).
  void add_fault() {
    f.exec("CREATE TRIGGER " + trigger + " BEFORE UPDATE ON " + kTable +
           " FOR EACH ROW BEGIN IF NEW.id = " + std::to_string(user_id) +
           " AND NEW.token_version <> OLD.token_version THEN"
           " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'token_version change refused by the test'; END IF; END");
  }
  void drop_fault() { f.exec("DROP TRIGGER IF EXISTS " + trigger); }

  std::string token() { return f.reset_token(user_id, kTable, old_hash); }

  svc::http::Response reset(const std::string& token) {
    return f.post("/auth/reset-pass", R"({"password":"New@Pass456","confirmPassword":"New@Pass456",)"
                                      R"("reset_password_token":")" +
                                          token + R"(","authTable":"svc_staff"})");
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_failed_revocation_keeps_the_old_password) {
  ResetFixture r;
  const std::string token = r.token();
  r.add_fault();
  auto reply = r.reset(token);
  BOOST_CHECK_EQUAL(reply.status, 500);
  auto user = r.users.find_by_id(r.user_id);
  BOOST_REQUIRE(user);
  BOOST_CHECK_EQUAL(user->password, r.old_hash);
  BOOST_CHECK_EQUAL(user->token_version, 0);

  r.drop_fault();
  reply = r.reset(token);
  BOOST_CHECK_EQUAL(reply.status, 200);
  BOOST_CHECK_EQUAL(reply.body, R"({"status":"Success","message":"Password reset successfully"})");
  user = r.users.find_by_id(r.user_id);
  BOOST_REQUIRE(user);
  BOOST_CHECK_NE(user->password, r.old_hash);
  BOOST_CHECK(r.f.hasher.verify(user->password, "New@Pass456").ok);
  BOOST_CHECK_EQUAL(user->token_version, 1);
  // The token is spent now.
  reply = r.reset(token);
  BOOST_CHECK_EQUAL(reply.status, 400);
}

BOOST_AUTO_TEST_SUITE_END()
