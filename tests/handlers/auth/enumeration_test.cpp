// Nothing an attacker can send tells registered, inactive or password-less
// accounts apart from unknown e-mails (issue 15, "Enumeration by timing or by
// message"): the same reply, and the same work (Argon2id computations counted
// by the fixture's hasher; database statements counted by the server's own
// session status), whatever the account's state.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <map>
#include <string>

#include "crypto/sealed_id.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(enumeration_test)

namespace {

constexpr const char* kPassword = "Right@Pass1";
const std::string kInvalid = R"({"status":"Failed","message":"Invalid credentials"})";
const std::string kNotFound = R"({"status":"Failed","message":"User not found"})";

std::string unique_email(const char* tag) {
  static int serial = 0;
  return std::string(tag) + "." + std::to_string(::getpid()) + "." + std::to_string(std::rand()) + "." +
         std::to_string(++serial) + "@example.com";
}

struct Account {
  long long id = 0;
  std::string email;
};

// A pool no site of the stack uses: its users are nobody on site 1.
constexpr long long kOtherPool = 999999;

// A user of the first auth table with `stored` in the password column, in
// user pool `pool` (the requests here name site 1, of the default pool;
// another pool's user must be an unknown one there).
Account make_user(DbFixture& f, const char* tag, const std::string& stored, bool active = true,
                  long long pool = svc::db::kDefaultPool) {
  svc::db::NewUser u;
  u.email = unique_email(tag);
  u.password_hash = stored;
  u.mobile = "+1555" + std::to_string(std::rand() % 10000000);
  const std::string& table = f.config.auth.tables.front();
  auto id = svc::db::UserRepo(f.db, *svc::db::allowlisted(table, f.config.auth.tables), pool).insert(u);
  BOOST_REQUIRE(id);
  if (!active) f.exec("UPDATE " + table + " SET active = 0 WHERE id = " + std::to_string(*id));
  return {*id, u.email};
}

svc::http::Response login(DbFixture& f, const std::string& email, const std::string& password) {
  return f.post("/auth/login", R"({"email":")" + email + R"(","password":")" + password + R"("})");
}

std::string stored_password(DbFixture& f, long long id) {
  return f.db
      .one(
          "SELECT COALESCE(password, '<NULL>') FROM svc_users WHERE id = ?", [&](svc::db::Params& p) { p.integer(id); },
          [](svc::db::RowReader& r) { return r.text(); })
      .value_or("<no row>");
}

// The statement and row-level counters of the fixture's own session (the one
// the handlers use), for comparing the work of two requests. A transaction
// end is a commit or a rollback: which one it is differs by design.
std::map<std::string, long long> session_work(DbFixture& f) {
  auto status = [&](const char* name) {
    return f.count(std::string("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS "
                               "WHERE VARIABLE_NAME = '") +
                   name + "'");
  };
  std::map<std::string, long long> out;
  for (const char* name : {"COM_STMT_EXECUTE", "HANDLER_WRITE", "HANDLER_READ_KEY"}) out[name] = status(name);
  out["transaction ends"] = status("HANDLER_COMMIT") + status("HANDLER_ROLLBACK");
  return out;
}

std::map<std::string, long long> work_of(DbFixture& f, const std::string& path, const std::string& body) {
  auto before = session_work(f);
  auto r = f.post(path, body);
  BOOST_TEST_REQUIRE(r.status == 200, r.body);
  auto after = session_work(f);
  for (auto& [k, v] : after) v -= before[k];
  return after;
}

}  // namespace

// Every refused login costs exactly one Argon2id computation with the
// configured parameters: the legacy AES check alone takes microseconds.
BOOST_AUTO_TEST_CASE(every_refused_login_costs_one_argon2id_and_answers_invalid_credentials) {
  DbFixture f;
  BOOST_REQUIRE(!f.config.keys.legacy_password_key.empty());
  const std::string aes = svc::testing::php_aes_password(kPassword, f.config.keys.legacy_password_key);
  const std::string argon = f.hasher.hash(kPassword);
  struct Case {
    const char* label;
    std::string stored;  // "" = no such user
    bool active;
    const char* password;
  };
  const Case cases[] = {
      {"unknown e-mail", "", true, kPassword},
      {"wrong password, Argon2id", argon, true, "Wrong@Pass1"},
      {"wrong password, legacy AES", aes, true, "Wrong@Pass1"},
      {"wrong password, legacy AES, inactive", aes, false, "Wrong@Pass1"},
      {"right password, inactive, Argon2id", argon, false, kPassword},
      {"right password, inactive, legacy AES", aes, false, kPassword},
      {"password column '!'", "!", true, kPassword},
      {"password column ''", "", true, kPassword},
      {"right password, another pool's user", argon, true, kPassword},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.label) {
      const bool exists = std::string(c.label) != "unknown e-mail";
      const bool elsewhere = std::string(c.label).find("another pool") != std::string::npos;
      Account a = exists ? make_user(f, "enum-login", c.stored, c.active, elsewhere ? kOtherPool : 1)
                         : Account{0, unique_email("enum-nobody")};
      f.hasher.argon2_work = 0;
      auto r = login(f, a.email, c.password);
      BOOST_TEST(r.status == 401);
      BOOST_TEST(r.body == kInvalid);
      BOOST_TEST(f.hasher.argon2_work == 1);
      if (exists) BOOST_TEST(stored_password(f, a.id) == c.stored);  // nothing upgraded on a refusal
    }
  }
}

// A right legacy password pays the same through its re-hash: one Argon2id.
BOOST_AUTO_TEST_CASE(a_granted_legacy_login_costs_one_argon2id_too) {
  DbFixture f;
  Account a =
      make_user(f, "enum-legacy-ok", svc::testing::php_aes_password(kPassword, f.config.keys.legacy_password_key));
  f.hasher.argon2_work = 0;
  auto r = login(f, a.email, kPassword);
  BOOST_TEST(r.status == 200);
  BOOST_TEST(f.hasher.argon2_work == 1);
}

// The throttle is no oracle either: the right password of an inactive
// account counts as a failure like any other.
BOOST_AUTO_TEST_CASE(an_inactive_accounts_right_password_counts_toward_the_throttle) {
  DbFixture f;
  Account a = make_user(f, "enum-throttle", f.hasher.hash(kPassword), false);
  for (int i = 0; i < f.config.auth.login_max_failures; ++i) login(f, a.email, kPassword);
  auto r = login(f, a.email, kPassword);
  BOOST_TEST(r.status == 429);
}

// request-pass runs the same statements and writes the same rows (one of
// them rolled back) whether or not the account gets a mail, and only a real,
// active account with a usable password gets one.
BOOST_AUTO_TEST_CASE(request_pass_does_the_same_work_for_everyone_and_mails_only_real_accounts) {
  DbFixture f;
  Account real = make_user(f, "enum-reset-real", f.hasher.hash(kPassword));
  Account bang = make_user(f, "enum-reset-bang", "!");
  Account empty = make_user(f, "enum-reset-empty", "");
  Account inactive = make_user(f, "enum-reset-inactive", f.hasher.hash(kPassword), false);
  Account elsewhere = make_user(f, "enum-reset-elsewhere", f.hasher.hash(kPassword), true, kOtherPool);
  f.exec("UPDATE svc_users SET password = NULL WHERE id = " + std::to_string(empty.id));
  auto body = [](const std::string& email) { return R"({"email":")" + email + R"(","appID":1})"; };
  auto outbox = [&](const std::string& email) {
    return f.count("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = '" + email + "'");
  };
  work_of(f, "/auth/request-pass", body(real.email));  // warm every statement cache first
  work_of(f, "/auth/request-pass", body(unique_email("enum-warm")));
  const auto real_work = work_of(f, "/auth/request-pass", body(real.email));
  BOOST_TEST(outbox(real.email) == 2);
  for (const Account& other : {Account{0, unique_email("enum-reset-nobody")}, bang, empty, inactive, elsewhere}) {
    BOOST_TEST_CONTEXT(other.email) {
      const auto r1 = f.post("/auth/request-pass", body(other.email));
      BOOST_TEST(r1.body == R"({"status":"Success","message":"An e-mail with reset instructions has been sent to )" +
                                other.email + R"("})");
      const auto work = work_of(f, "/auth/request-pass", body(other.email));
      for (const auto& [name, n] : real_work) {
        BOOST_TEST_CONTEXT(name) { BOOST_TEST(work.at(name) == n); }
      }
      BOOST_TEST(outbox(other.email) == 0);
    }
  }
}

// POST /auth/email-code (issue 26): a registered user who gets a first
// code and an unknown or an inactive address run the same statements and
// get the same reply; only the registered one gets a mail. (A user whose
// code row exists from an earlier request costs the upsert one more index
// read: the same for a code sent and for one the resend rule holds back.)
BOOST_AUTO_TEST_CASE(email_code_does_the_same_work_for_everyone_and_mails_only_real_accounts) {
  DbFixture f;
  Account warm = make_user(f, "enum-ecode-warm", "!");
  Account real = make_user(f, "enum-ecode-real", "!");
  Account inactive = make_user(f, "enum-ecode-inactive", "!", false);
  Account elsewhere = make_user(f, "enum-ecode-elsewhere", "!", true, kOtherPool);
  auto body = [](const std::string& email) { return R"({"email":")" + email + R"(","appID":1})"; };
  auto outbox = [&](const std::string& email) {
    return f.count("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = '" + email + "'");
  };
  work_of(f, "/auth/email-code", body(warm.email));  // warm every statement cache first
  work_of(f, "/auth/email-code", body(unique_email("enum-ecode-warm")));
  const auto real_work = work_of(f, "/auth/email-code", body(real.email));
  BOOST_TEST(outbox(real.email) == 1);
  for (const Account& other : {Account{0, unique_email("enum-ecode-nobody")}, inactive, elsewhere}) {
    BOOST_TEST_CONTEXT(other.email) {
      const auto r1 = f.post("/auth/email-code", body(other.email));
      BOOST_TEST(r1.body ==
                 R"({"status":"Success","message":"A sign-in code has been sent to )" + other.email + R"("})");
      const auto work = work_of(f, "/auth/email-code", body(other.email));
      for (const auto& [name, n] : real_work) {
        BOOST_TEST_CONTEXT(name) { BOOST_TEST(work.at(name) == n); }
      }
      BOOST_TEST(outbox(other.email) == 0);
    }
  }
  // Inside the resend rule: the same reply, no second mail.
  BOOST_TEST(f.post("/auth/email-code", body(real.email)).body ==
             R"({"status":"Success","message":"A sign-in code has been sent to )" + real.email + R"("})");
  BOOST_TEST(outbox(real.email) == 1);
}

// A reset token for an account whose password column is "!" or NULL (one
// issued before it was disabled) sets no password.
BOOST_AUTO_TEST_CASE(reset_pass_never_gives_a_password_to_an_account_that_has_none) {
  DbFixture f;
  for (const char* stored : {"!", "<NULL>"}) {
    BOOST_TEST_CONTEXT(stored) {
      Account a = make_user(f, "enum-reset-set", "!");
      if (std::string(stored) == "<NULL>") {
        f.exec("UPDATE svc_users SET password = NULL WHERE id = " + std::to_string(a.id));
      }
      const std::string token = f.reset_token(a.id, "svc_users", std::string(stored) == "!" ? "!" : "");
      auto r = f.post("/auth/reset-pass", R"({"password":"New@Pass123","confirmPassword":"New@Pass123",)"
                                          R"("reset_password_token":")" +
                                              token + R"("})");
      BOOST_TEST(r.status == 400);
      BOOST_TEST(r.body == R"({"status":"Failed","message":"Reset password token has expired or is invalid"})");
      BOOST_TEST(stored_password(f, a.id) == stored);
    }
  }
}

// An inactive account looks like no account to the encrypted-userId
// endpoints, and is sent no SMS.
BOOST_AUTO_TEST_CASE(inactive_accounts_answer_like_unknown_ones_and_get_no_sms) {
  DbFixture f;
  Account a = make_user(f, "enum-inactive-id", f.hasher.hash(kPassword), false);
  auto sealed = [&](long long id) {
    return R"({"userId":")" +
           svc::crypto::seal_id(id, f.clock.now() + 3600, svc::crypto::IdPurpose::User, f.config.keys.id_key) + R"("})";
  };
  const long long missing = 2000000000;
  for (const char* path : {"/auth/user-email", "/auth/user-sms-code"}) {
    BOOST_TEST_CONTEXT(path) {
      auto unknown = f.post(path, sealed(missing));
      auto inactive = f.post(path, sealed(a.id));
      BOOST_TEST(unknown.status == 404);
      BOOST_TEST(unknown.body == kNotFound);
      BOOST_TEST(inactive.status == unknown.status);
      BOOST_TEST(inactive.body == unknown.body);
    }
  }
  BOOST_TEST(f.sms.sent == 0);
}

BOOST_AUTO_TEST_SUITE_END()
