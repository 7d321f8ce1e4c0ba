// Every change of a user's password leaves an svc_versions row, written in
// the same transaction as the change: reset-pass and the hash upgrade at
// login. A trigger that refuses the version row (standing in for a crash
// between the two statements) must leave the old hash in place; once it is
// gone the same request succeeds and writes exactly one row.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>

#include "crypto/password_hasher.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(version_rows_test)

namespace {

constexpr const char* kTable = "svc_staff";  // the stack's second auth table
// A bcrypt hash of "correct horse" (cost 4), as a PHP application stored it.
constexpr const char* kBcrypt = "$2y$04$w0Jui/stymPzucyZIlRMXeMN2e5a2rH9T96fqmOtmBVD45pdVMaUe";
constexpr const char* kBcryptPassword = "correct horse";

struct VersionFixture {
  DbFixture f;
  std::string tag = std::to_string(::getpid()) + "_" + std::to_string(std::rand());
  std::string email = "versions-" + tag + "@example.com";
  std::string trigger = "version_rows_test_" + tag;
  svc::db::UserRepo users{f.db, *svc::db::allowlisted(kTable, f.config.auth.tables)};
  long long user_id = 0;

  explicit VersionFixture(const std::string& stored_hash) {
    svc::db::NewUser u;
    u.email = email;
    u.password_hash = stored_hash;
    u.first_name = "Vera";
    u.last_name = "Sion";
    user_id = users.insert(u).value_or(0);
    BOOST_REQUIRE_GT(user_id, 0);
  }
  ~VersionFixture() {
    try {
      drop_fault();
      f.exec("DELETE FROM svc_versions WHERE table_name = 'svc_staff' AND record_id = " + std::to_string(user_id));
      f.exec("DELETE FROM svc_login_throttle WHERE email = '" + email + "'");
      f.exec("DELETE FROM " + std::string(kTable) + " WHERE id = " + std::to_string(user_id));
    } catch (...) {
    }
  }

  // Refuses any svc_versions row of the test user (test setup only: the
  // trigger name and the id are ours, no request text reaches this SQL).
  void add_fault() {
    f.exec("CREATE TRIGGER " + trigger +
           " BEFORE INSERT ON svc_versions FOR EACH ROW BEGIN IF NEW.table_name = 'svc_staff' AND NEW.record_id = " +
           std::to_string(user_id) +
           " THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'version row refused by the test'; END IF; END");
  }
  void drop_fault() { f.exec("DROP TRIGGER IF EXISTS " + trigger); }

  long long versions(const char* action) {
    return f.count("SELECT COUNT(*) FROM svc_versions WHERE table_name = 'svc_staff' AND record_id = " +
                   std::to_string(user_id) + " AND action = '" + action + "'");
  }
  std::string stored() { return users.find_by_id(user_id).value().password; }

  std::string reset_token(const std::string& hash) { return f.reset_token(user_id, kTable, hash); }
  svc::http::Response reset(const std::string& token) {
    return f.post("/auth/reset-pass", R"({"password":"New@Pass456","confirmPassword":"New@Pass456",)"
                                      R"("reset_password_token":")" +
                                          token + R"("})");
  }
  svc::http::Response login(const std::string& password) {
    return f.post("/auth/login",
                  R"({"email":")" + email + R"(","password":")" + password + R"(","authTable":"svc_staff"})");
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(reset_pass_writes_its_version_row_in_the_password_transaction) {
  VersionFixture v(kBcrypt);
  const std::string token = v.reset_token(kBcrypt);
  v.add_fault();
  BOOST_CHECK_EQUAL(v.reset(token).status, 500);
  BOOST_CHECK_EQUAL(v.stored(), kBcrypt);
  BOOST_CHECK_EQUAL(v.users.find_by_id(v.user_id)->token_version, 0);
  BOOST_CHECK_EQUAL(v.versions("update"), 0);

  v.drop_fault();
  auto reply = v.reset(token);
  BOOST_CHECK_EQUAL(reply.status, 200);
  BOOST_CHECK_EQUAL(reply.body, R"({"status":"Success","message":"Password reset successfully"})");
  BOOST_CHECK(v.f.hasher.verify(v.stored(), "New@Pass456").ok);
  BOOST_CHECK_EQUAL(v.versions("update"), 1);
  BOOST_CHECK_EQUAL(v.f.count("SELECT COUNT(*) FROM svc_versions WHERE table_name = 'svc_staff' AND record_id = " +
                              std::to_string(v.user_id)),
                    1);
}

BOOST_AUTO_TEST_CASE(hash_upgrade_at_login_writes_its_version_row_in_one_transaction) {
  VersionFixture v(kBcrypt);
  v.add_fault();
  // The upgrade and its row are both or neither: a refused row keeps the
  // legacy hash, so the next login tries again.
  BOOST_CHECK_EQUAL(v.login(kBcryptPassword).status, 500);
  BOOST_CHECK_EQUAL(v.stored(), kBcrypt);
  BOOST_CHECK_EQUAL(v.versions("update"), 0);

  v.drop_fault();
  BOOST_CHECK_EQUAL(v.login(kBcryptPassword).status, 200);
  const std::string upgraded = v.stored();
  BOOST_CHECK(upgraded.rfind("$argon2id$", 0) == 0);
  BOOST_CHECK(v.f.hasher.verify(upgraded, kBcryptPassword).ok);
  BOOST_CHECK_EQUAL(v.versions("update"), 1);
  // Nothing left to upgrade: no second row.
  BOOST_CHECK_EQUAL(v.login(kBcryptPassword).status, 200);
  BOOST_CHECK_EQUAL(v.stored(), upgraded);
  BOOST_CHECK_EQUAL(v.versions("update"), 1);
}

BOOST_AUTO_TEST_SUITE_END()
