// The per-worker caches of rows that requests read on every call (issue 17,
// throughput): a user row for /auth/refresh-token and /auth/user-email
// ([auth] user_cache_seconds, at most 1 s), the folder links of
// getFolderLimits (same bound) and a template for
// /message/notification ([server] template_cache_seconds). A revocation, a
// deactivation or an admin change applies once the cached row is older than
// the bound; within it, the old row answers (the documented behaviour).
// The rotation of a current refresh token (issue 37, speed) is one
// conditional UPDATE and nothing else, which since issue 52 also checks the
// user row (a revocation applies at once; a token from before reads the
// user through the cache); only a miss (the previous token within the
// grace, a reuse, a revoked session) reads the rows to tell which it is. Counted on the fixture's own connection,
// so other processes' statements do not show.
#include <rapidjson/document.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>

#include "auth/lookup/folder_cache.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "auth/tokens/tokens.hpp"
#include "auth/user_cache.hpp"
#include "crypto/jwt.hpp"
#include "crypto/sealed_id.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "db_fixture.hpp"
#include "http/site_cache.hpp"
#include "messaging/template_cache.hpp"
#include "worker_caches.hpp"

using svc::testing::DbFixture;
using svc::testing::WorkerCaches;

BOOST_AUTO_TEST_SUITE(recent_rows_test)

namespace {

const std::string kRevoked = R"({"status":"Failed","message":"Refresh token is no longer valid"})";
const std::string kNotFound = R"({"status":"Failed","message":"User not found"})";

svc::db::TableName users_table(DbFixture& f) {
  return *svc::db::allowlisted(f.config.auth.tables.front(), f.config.auth.tables);
}

svc::db::User make_user(DbFixture& f) {
  static int serial = 0;
  svc::db::NewUser u;
  u.email = "recent." + std::to_string(::getpid()) + "." + std::to_string(std::rand()) + "." +
            std::to_string(++serial) + "@example.com";
  u.password_hash = "$argon2id$v=19$m=8192,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";
  auto id = svc::db::UserRepo(f.db, users_table(f)).insert(u);
  BOOST_REQUIRE(id);
  auto user = svc::db::UserRepo(f.db, users_table(f)).find_by_id(*id);
  BOOST_REQUIRE(user);
  return *user;
}

svc::http::Response refresh(DbFixture& f, const svc::auth::TokenPair& pair) {
  return f.post("/auth/refresh-token", R"({"payload":{"access_token":")" + pair.access_token +
                                           R"(","refresh_token":")" + pair.refresh_token + R"("}})");
}

svc::http::Response refresh(DbFixture& f, const std::string& refresh_token) {
  return f.post("/auth/refresh-token",
                R"({"payload":{"access_token":"unused","refresh_token":")" + refresh_token + R"("}})");
}

// The same refresh token as one issued before issue 52 wrote it: without the
// email_verified claim (the rotation then reads the user, through the cache).
std::string as_before_issue_52(DbFixture& f, const std::string& refresh_token) {
  auto verified = svc::crypto::jwt_verify(refresh_token, f.config.keys.jwt, "refresh", f.clock.now());
  BOOST_REQUIRE(verified.ok() && verified.claims.email_verified.has_value());
  svc::crypto::Claims claims = verified.claims;
  claims.email_verified.reset();
  return svc::crypto::jwt_sign(claims, f.config.keys.jwt.current);
}

std::string refresh_token_of(const svc::http::Response& reply) {
  rapidjson::Document doc;
  doc.Parse(reply.body.c_str());
  BOOST_REQUIRE(doc.IsObject() && doc.HasMember("token"));
  return doc["token"]["refresh_token"].GetString();
}

// The request of a sign-in: what its session records of the device.
const svc::http::Request& sign_in_request() {
  static const svc::http::Request request = [] {
    svc::http::Request r;
    r.remote_addr = "127.0.0.1";
    r.headers["user-agent"] = "recent-rows-test";
    return r;
  }();
  return request;
}

svc::http::Response user_email(DbFixture& f, long long id) {
  return f.post("/auth/user-email",
                R"({"userId":")" +
                    svc::crypto::seal_id(id, f.clock.now() + 3600, svc::crypto::IdPurpose::User, f.config.keys.id_key) +
                    R"("})");
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_older_revoked_refresh_token_is_refused_once_the_cached_row_is_a_second_old) {
  DbFixture f;
  svc::auth::UserCache cache(1);
  f.ctx.user_cache = &cache;
  svc::db::User user = make_user(f);
  svc::auth::TokenPair pair = svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);
  const std::string old = as_before_issue_52(f, pair.refresh_token);
  BOOST_CHECK_EQUAL(refresh(f, old).status, 200);  // reads the row, keeps it

  svc::db::UserRepo(f.db, users_table(f)).bump_token_version(user.id);  // a password reset
  BOOST_CHECK_EQUAL(refresh(f, old).status, 200);                       // same second: the cached row

  f.clock.value += 1;
  auto refused = refresh(f, old);
  BOOST_CHECK_EQUAL(refused.status, 401);
  BOOST_CHECK_EQUAL(refused.body, kRevoked);
  f.clock.value += 5;
  BOOST_CHECK_EQUAL(refresh(f, old).body, kRevoked);  // the current row is cached now, and it refuses
}

BOOST_AUTO_TEST_CASE(a_revoked_or_deactivated_users_refresh_token_is_refused_at_once_whatever_is_cached) {
  DbFixture f;
  WorkerCaches caches(f);
  svc::db::User user = make_user(f);
  svc::auth::TokenPair pair = svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);
  auto first = refresh(f, pair);
  BOOST_REQUIRE_EQUAL(first.status, 200);
  svc::auth::find_user_recent(f.ctx, users_table(f), user.id);  // the row as it is now, cached

  svc::db::UserRepo(f.db, users_table(f)).bump_token_version(user.id);  // a password reset
  auto refused = refresh(f, refresh_token_of(first));                   // same second
  BOOST_CHECK_EQUAL(refused.status, 401);
  BOOST_CHECK_EQUAL(refused.body, kRevoked);

  svc::db::User other = make_user(f);
  auto second = refresh(f, svc::auth::issue_tokens(sign_in_request(), other, users_table(f).str(), 1, f.ctx));
  BOOST_REQUIRE_EQUAL(second.status, 200);
  f.exec("UPDATE " + users_table(f).quoted() + " SET active = 0 WHERE id = " + std::to_string(other.id));
  BOOST_CHECK_EQUAL(refresh(f, refresh_token_of(second)).body, kRevoked);
}

BOOST_AUTO_TEST_CASE(a_user_verified_after_the_token_rotates_and_the_new_tokens_say_so) {
  DbFixture f;
  WorkerCaches caches(f);
  svc::db::User user = make_user(f);
  BOOST_REQUIRE(!user.email_verified);
  svc::auth::TokenPair pair = svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);
  svc::db::UserRepo(f.db, users_table(f)).prove_address(user.id, f.clock.now());

  svc::http::Response reply;
  // The rotation that checks the user misses; the user is read; the rotation again.
  BOOST_CHECK_EQUAL(f.raised("QUESTIONS", [&] { reply = refresh(f, pair); }), 3);
  BOOST_REQUIRE_EQUAL(reply.status, 200);
  auto claims = svc::crypto::jwt_verify(refresh_token_of(reply), f.config.keys.jwt, "refresh", f.clock.now());
  BOOST_REQUIRE(claims.ok());
  BOOST_CHECK(claims.claims.email_verified == std::optional<bool>(true));
  BOOST_CHECK_EQUAL(claims.claims.gen, 2);
  BOOST_CHECK_EQUAL(f.raised("QUESTIONS", [&] { reply = refresh(f, refresh_token_of(reply)); }), 1);
  BOOST_CHECK_EQUAL(reply.status, 200);
}

BOOST_AUTO_TEST_CASE(a_token_newer_than_the_cached_row_reads_the_row_again) {
  DbFixture f;
  svc::auth::UserCache cache(1);
  f.ctx.user_cache = &cache;
  svc::db::User user = make_user(f);
  svc::auth::TokenPair old = svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);
  BOOST_CHECK_EQUAL(refresh(f, old).status, 200);  // keeps the row at version 0

  svc::db::UserRepo(f.db, users_table(f)).bump_token_version(user.id);  // a password reset...
  user.token_version += 1;
  svc::auth::TokenPair fresh =
      svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);  // ...and a sign-in
  BOOST_CHECK_EQUAL(refresh(f, fresh).status, 200);   // same second: newer than the cached row, so read again
  BOOST_CHECK_EQUAL(refresh(f, old).body, kRevoked);  // and the row now kept refuses the old token at once
}

BOOST_AUTO_TEST_CASE(without_a_cache_a_revocation_applies_at_once) {
  DbFixture f;
  svc::db::User user = make_user(f);
  svc::auth::TokenPair old = svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);
  BOOST_CHECK_EQUAL(refresh(f, old).status, 200);
  svc::db::UserRepo(f.db, users_table(f)).bump_token_version(user.id);
  BOOST_CHECK_EQUAL(refresh(f, old).body, kRevoked);
}

BOOST_AUTO_TEST_CASE(a_deactivated_user_has_no_email_reply_once_the_cached_row_is_a_second_old) {
  DbFixture f;
  svc::auth::UserCache cache(1);
  f.ctx.user_cache = &cache;
  svc::db::User user = make_user(f);
  BOOST_CHECK_EQUAL(user_email(f, user.id).status, 200);
  f.exec("UPDATE " + users_table(f).quoted() + " SET active = 0 WHERE id = " + std::to_string(user.id));
  BOOST_CHECK_EQUAL(user_email(f, user.id).status, 200);  // same second: the cached row
  f.clock.value += 1;
  auto gone = user_email(f, user.id);
  BOOST_CHECK_EQUAL(gone.status, 404);
  BOOST_CHECK_EQUAL(gone.body, kNotFound);
}

BOOST_AUTO_TEST_CASE(a_cached_row_is_never_used_after_the_clock_stepped_back_or_with_ttl_zero) {
  DbFixture f;
  svc::db::User user = make_user(f);
  svc::auth::UserCache cache(1);
  cache.put("svc_users", user, 1000);
  BOOST_REQUIRE(cache.get("svc_users", user.id, 1000) != nullptr);
  BOOST_CHECK(cache.get("svc_users", user.id, 1000)->password.empty());  // no hash kept
  BOOST_CHECK(cache.get("svc_users", user.id, 999) == nullptr);          // clock stepped back
  BOOST_CHECK(cache.get("svc_users", user.id, 1001) == nullptr);         // a second old
  BOOST_CHECK(cache.get("svc_staff", user.id, 1000) == nullptr);         // another table
  svc::auth::UserCache off(0);
  off.put("svc_users", user, 1000);
  BOOST_CHECK(off.get("svc_users", user.id, 1000) == nullptr);
}

BOOST_AUTO_TEST_CASE(a_disabled_template_stops_notifications_once_the_cached_row_expires) {
  DbFixture f;
  svc::messaging::TemplateCache cache(1);
  f.ctx.template_cache = &cache;
  svc::db::Site s;
  s.name = "recent-rows-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand());
  s.email_from = "Recent <recent@example.com>";
  long long site = svc::db::SiteRepo(f.db).create(s);
  BOOST_REQUIRE_GT(site, 0);
  svc::db::Template t;
  t.site_id = site;
  t.event = "recent-rows";
  t.subject = "Hello";
  t.content = "<p>Hello</p>";
  svc::db::NotificationRepo templates(f.db);
  t.id = templates.insert(t);
  auto notify = [&] {
    return f
        .post("/message/notification", R"({"event":"recent-rows","email":"someone@example.com"})",
              {{"site-id", std::to_string(site)}})
        .body;
  };
  const std::string queued = R"({"status":"Success"})";
  const std::string no_template = R"({"status":"Failed","message":"Notification event not found or disabled"})";
  BOOST_CHECK_EQUAL(notify(), queued);
  t.enabled = false;
  templates.update(t);
  BOOST_CHECK_EQUAL(notify(), queued);  // same second: the cached template
  f.clock.value += 1;
  BOOST_CHECK_EQUAL(notify(), no_template);
  t.enabled = true;
  templates.update(t);
  BOOST_CHECK_EQUAL(notify(), queued);  // a missing or disabled template is never cached
  const std::string where = " WHERE site_id = " + std::to_string(site);
  BOOST_CHECK_EQUAL(f.count("SELECT COUNT(*) FROM svc_notification_log" + where), 3);
  f.exec("DELETE FROM svc_notification_log" + where);
  f.exec("DELETE FROM svc_notifications" + where);
  f.exec("DELETE FROM svc_sites WHERE id = " + std::to_string(site));
}

BOOST_AUTO_TEST_CASE(a_removed_folder_link_disappears_once_the_cached_list_is_a_second_old) {
  DbFixture f;
  f.config.auth.folder_limits_auth = "none";  // who may read is not what this shows
  svc::auth::FolderCache cache(1);
  f.ctx.folder_cache = &cache;
  svc::db::User user = make_user(f);
  const std::string folders = f.config.auth.folder_tables.front();
  long long sites[2] = {0, 0};
  for (long long& site : sites) {
    svc::db::Site s;
    s.name = "recent-folders-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand());
    s.email_from = "Recent <recent@example.com>";
    site = svc::db::SiteRepo(f.db).create(s);
    BOOST_REQUIRE_GT(site, 0);
  }
  // One folder in each site, both linked to the user.
  const long long base = 800000000 + (::getpid() % 100000) * 10;
  for (int i = 0; i < 2; ++i) {
    const std::string folder = std::to_string(base + i);
    f.exec("INSERT INTO `" + folders + "` (id, site_id, name) VALUES (" + folder + ", " + std::to_string(sites[i]) +
           ", 'Recent folder')");
    f.exec("INSERT INTO svc_related (master_table, master_id, linked_table, linked) VALUES ('" + users_table(f).str() +
           "', " + std::to_string(user.id) + ", '" + folders + "', " + folder + ")");
  }
  auto limits = [&](long long site) {
    return f
        .post("/auth/getFolderLimits", R"({"appID":)" + std::to_string(site) + R"(,"table":")" + folders +
                                           R"(","userId":)" + std::to_string(user.id) + "}")
        .body;
  };
  auto listed = [](long long id) { return R"({"status":"Success","data":[{"linked":)" + std::to_string(id) + "}]}"; };
  const std::string none = R"({"status":"Success","data":[]})";
  BOOST_CHECK_EQUAL(limits(sites[0]), listed(base));
  BOOST_CHECK_EQUAL(limits(sites[1]), listed(base + 1));  // the site is part of the key
  f.exec("DELETE FROM svc_related WHERE linked_table = '" + folders + "' AND linked = " + std::to_string(base));
  BOOST_CHECK_EQUAL(limits(sites[0]), listed(base));  // same second: the cached list
  f.clock.value += 1;
  BOOST_CHECK_EQUAL(limits(sites[0]), none);
  BOOST_CHECK_EQUAL(limits(sites[1]), listed(base + 1));
  svc::auth::FolderCache off(0);
  off.put("k", {1}, 1000);
  BOOST_CHECK(off.get("k", 1000) == nullptr);
  BOOST_CHECK(cache.get("never-put", f.clock.now()) == nullptr);
  f.exec("DELETE FROM svc_related WHERE linked_table = '" + folders + "' AND linked IN (" + std::to_string(base) +
         ", " + std::to_string(base + 1) + ")");
  f.exec("DELETE FROM `" + folders + "` WHERE id IN (" + std::to_string(base) + ", " + std::to_string(base + 1) + ")");
  for (long long site : sites) f.exec("DELETE FROM svc_sites WHERE id = " + std::to_string(site));
}

BOOST_AUTO_TEST_CASE(a_current_token_rotates_in_one_statement) {
  DbFixture f;
  WorkerCaches caches(f);
  svc::db::User user = make_user(f);
  auto pair = svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);
  auto first = refresh(f, pair.refresh_token);  // prepares the statements, caches the user row
  BOOST_REQUIRE_EQUAL(first.status, 200);
  std::string current = refresh_token_of(first);

  svc::http::Response second;
  BOOST_CHECK_EQUAL(f.raised("QUESTIONS", [&] { second = refresh(f, current); }), 1);
  BOOST_CHECK_EQUAL(second.status, 200);
}

BOOST_AUTO_TEST_CASE(the_previous_token_within_the_grace_reads_the_row_after_the_missed_update) {
  DbFixture f;
  WorkerCaches caches(f);
  svc::db::User user = make_user(f);
  auto pair = svc::auth::issue_tokens(sign_in_request(), user, users_table(f).str(), 1, f.ctx);
  BOOST_REQUIRE_EQUAL(refresh(f, pair.refresh_token).status, 200);  // rotated: pair's token is the previous one

  // The rotation that checks the user misses, the user row, the plain
  // rotation misses too, the session row.
  svc::http::Response again;
  BOOST_CHECK_EQUAL(f.raised("QUESTIONS", [&] { again = refresh(f, pair.refresh_token); }), 4);
  BOOST_CHECK_EQUAL(again.status, 200);  // two tabs: the grace answers with the current generation
}

BOOST_AUTO_TEST_SUITE_END()
