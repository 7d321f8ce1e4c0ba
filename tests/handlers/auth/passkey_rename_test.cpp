// POST /auth/passkey/rename (issue 38) against the stack's database: the
// user renames their own passkey on the token's site and gets it back as
// list shows it; a name that is empty, blank, too long or holds control
// characters is a validation error on `name`; another user's passkey, or one
// of another site, is 404 and keeps its name. Renaming to the name it already
// has is no error (MariaDB reports no changed row then).
#include <boost/test/unit_test.hpp>
#include <string>

#include "db/passkey_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"
#include "passkey_site.hpp"

using svc::testing::add_passkey;
using svc::testing::DbFixture;
using svc::testing::site_with_rp;
using svc::testing::unique;

BOOST_AUTO_TEST_SUITE(passkey_rename_test)

namespace {

const std::string kPassword = "Rename@2026pass";
const std::string kNotFound = R"({"status":"Failed","message":"Passkey not found"})";
struct Owner {
  long long id = 0;
  std::string email;
};

Owner new_user(DbFixture& f) {
  const auto table = *svc::db::allowlisted(f.config.auth.tables.front(), f.config.auth.tables);
  svc::db::NewUser fresh;
  fresh.email = unique("passkey-rename.") + "@example.com";
  fresh.password_hash = f.hasher.hash(kPassword);
  auto id = svc::db::UserRepo(f.db, table).insert(fresh);
  BOOST_REQUIRE(id);
  return {*id, fresh.email};
}

// "Bearer <account token>" of a password sign-in to `site`.
std::string bearer(DbFixture& f, const Owner& who, long long site) {
  auto reply = f.post("/auth/login", R"({"email":")" + who.email + R"(","password":")" + kPassword + R"(","appID":)" +
                                         std::to_string(site) + "}");
  BOOST_REQUIRE_EQUAL(reply.status, 200);
  const std::string rest = reply.body.substr(reply.body.find("\"account_token\":\"") + 17);
  return "Bearer " + rest.substr(0, rest.find('"'));
}

// The stored name of the passkey `id` of `user` on `site`; "" when none.
std::string name_of(DbFixture& f, long long site, long long user, long long id) {
  for (const auto& k : svc::db::PasskeyRepo(f.db).list(site, f.config.auth.tables.front(), user)) {
    if (k.id == id) return k.name;
  }
  return "";
}

svc::http::Response rename(DbFixture& f, const std::string& bearer, long long id, const std::string& name_json) {
  return f.post("/auth/passkey/rename", R"({"id":)" + std::to_string(id) + R"(,"name":)" + name_json + "}",
                {{"authorization", bearer}});
}

std::string invalid_name(const std::string& message) {
  return R"({"status":"Failed","message":"Validation error","errors":[{"field":"name","message":")" + message +
         R"("}]})";
}

// A user signed in to a fresh site with one passkey there, named `name`.
struct OwnPasskey {
  OwnPasskey(DbFixture& f, const std::string& name)
      : site(site_with_rp(f, "rename.localhost")),
        me(new_user(f)),
        key(add_passkey(f, site, me.id, name)),
        auth(bearer(f, me, site)) {}
  long long site;
  Owner me;
  long long key;
  std::string auth;
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_owner_renames_a_passkey_and_gets_it_back) {
  DbFixture f;
  const OwnPasskey own(f, "Passkey");
  const auto& [site, me, key, auth] = own;

  auto reply = rename(f, auth, key, R"("  Work laptop ")");
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(reply.body == R"({"status":"Success","passkey":{"id":)" + std::to_string(key) +
                               R"(,"name":"Work laptop","created_at":)" + std::to_string(f.clock.value) +
                               R"(,"last_used_at":null,"synced":false,"backed_up":false}})");
  BOOST_TEST(name_of(f, site, me.id, key) == "Work laptop");

  reply = rename(f, auth, key, R"("Work laptop")");  // unchanged: still found
  BOOST_TEST(reply.status == 200, reply.body);
  BOOST_TEST(f.count("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'passkey_renamed' AND user_id = " +
                     std::to_string(me.id)) == 2);
}

BOOST_AUTO_TEST_CASE(bad_names_are_validation_errors_and_change_nothing) {
  DbFixture f;
  const OwnPasskey own(f, "Phone");
  const auto& [site, me, key, auth] = own;

  const std::pair<std::string, std::string> cases[] = {
      {R"("")", "name is required"},
      {R"("   ")", "name is required"},
      {'"' + std::string(256, 'a') + '"', "name is too long"},
      {R"("Tab\there")", "name must not contain control characters"},
      {"7", "name must be a string"},
  };
  for (const auto& [name, message] : cases) {
    auto reply = rename(f, auth, key, name);
    BOOST_TEST(reply.status == 400, name);
    BOOST_TEST(reply.body == invalid_name(message), name);
  }
  BOOST_TEST(rename(f, auth, key, '"' + std::string(255, 'a') + '"').status == 200);
  BOOST_TEST(name_of(f, site, me.id, key) == std::string(255, 'a'));
}

BOOST_AUTO_TEST_CASE(another_users_or_another_sites_passkey_is_not_found) {
  DbFixture f;
  const long long site = site_with_rp(f, "rename.localhost");
  const long long other_site = site_with_rp(f, "rename.localhost");
  const Owner me = new_user(f);
  const Owner them = new_user(f);
  const long long theirs = add_passkey(f, site, them.id, "Their key");
  const long long mine_elsewhere = add_passkey(f, other_site, me.id, "Other site");
  const std::string auth = bearer(f, me, site);

  for (long long id : {theirs, mine_elsewhere, theirs + 1000000}) {
    auto reply = rename(f, auth, id, R"("Mine now")");
    BOOST_TEST(reply.status == 404);
    BOOST_TEST(reply.body == kNotFound);
  }
  BOOST_TEST(name_of(f, site, them.id, theirs) == "Their key");
  BOOST_TEST(name_of(f, other_site, me.id, mine_elsewhere) == "Other site");
  BOOST_TEST(f.post("/auth/passkey/rename", R"({"id":1,"name":"x"})").status == 401);
}

BOOST_AUTO_TEST_SUITE_END()
