#pragma once
// A fresh user of the first auth table with a confirmed TOTP factor, for the
// handler tests of the login's second step on the fixed clock.
#include <rapidjson/document.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <ctime>
#include <string>

#include "auth/mfa/totp_factor.hpp"
#include "crypto/encoding.hpp"
#include "crypto/totp.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"

namespace svc::testing {

inline const std::string kMfaPassword = "Window@2026pass";

// The factor is confirmed with the code of step now-5, so every step of the
// tests is newer.
struct MfaUser {
  explicit MfaUser(DbFixture& f, const std::string& prefix = "mfa-window")
      : table(*db::allowlisted(f.config.auth.tables.front(), f.config.auth.tables)) {
    static int serial = 0;
    static const std::string run = std::to_string(::getpid()) + std::to_string(std::time(nullptr) % 100000);
    db::NewUser fresh;
    fresh.email = prefix + "." + run + std::to_string(++serial) + "@example.com";
    fresh.password_hash = f.hasher.hash(kMfaPassword);
    email = fresh.email;
    db::UserRepo users(f.db, table);
    auto id = users.insert(fresh);
    BOOST_REQUIRE(id);
    user_id = *id;
    auto user = users.find_by_id(*id);
    BOOST_REQUIRE(user);
    auto setup = auth::set_up_totp(f.ctx, table, *user, "test");
    BOOST_REQUIRE(setup);
    secret = crypto::base32_decode(setup->secret).value();
    const long long saved = f.clock.value;
    f.clock.value -= 5 * 30;
    BOOST_REQUIRE(auth::accept_totp(f.ctx, table.str(), *id, code(f.clock.value, 0), true));
    f.clock.value = saved;
  }
  // The code of the step `offset` steps from the one of `now`.
  std::string code(long long now, long long offset) const {
    return crypto::totp_code(secret, crypto::totp_step(now) + offset);
  }
  // A 6-digit code no step of now-2..now+2 has.
  std::string wrong_code(long long now) const {
    for (const char* candidate : {"000000", "111111", "123456", "654321", "999999"}) {
      bool valid = false;
      for (long long offset = -2; offset <= 2; ++offset) valid = valid || code(now, offset) == candidate;
      if (!valid) return candidate;
    }
    BOOST_FAIL("no wrong code found");
    return "";
  }
  // The mfa_token of a password login (for the site `app_id`; 0 = none).
  std::string mfa_token(DbFixture& f, long long app_id = 0) const {
    const std::string site = app_id > 0 ? R"(,"appID":)" + std::to_string(app_id) : "";
    auto reply =
        f.post("/auth/login", R"({"email":")" + email + R"(","password":")" + kMfaPassword + "\"" + site + "}");
    BOOST_REQUIRE_EQUAL(reply.status, 401);
    rapidjson::Document doc;
    doc.Parse(reply.body.c_str());
    BOOST_REQUIRE(doc.IsObject() && doc.HasMember("mfa_token") && doc["mfa_token"].IsString());
    return doc["mfa_token"].GetString();
  }
  db::TableName table;
  long long user_id = 0;
  std::string email, secret;
};

}  // namespace svc::testing
