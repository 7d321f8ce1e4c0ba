// The SQL field of POST /message/notification needs the read-only
// [database.merge] account: without it (ctx.merge_db == nullptr) a named
// merge query, like raw SQL, is a 400 Validation error on SQL, and nothing
// runs on the application's connection (which keeps its session and its
// statement cache). With it, named queries (SELECT and WITH ... SELECT)
// fill the template.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>

#include "db/merge_repo.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(merge_account_test)

namespace {

constexpr const char* kNotConfigured = R"({"status":"Failed","message":"Validation error","errors":[{"field":"SQL",)"
                                       R"("message":"SQL merge is not configured on this server"}]})";

struct MergeFixture {
  DbFixture f;
  long long site_id = 0;

  explicit MergeFixture(bool allow_sql_merge = false) {
    svc::db::Site s;
    s.name = "merge-account-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand());
    s.email_from = "Merge <merge@example.com>";
    s.allow_sql_merge = allow_sql_merge;
    site_id = svc::db::SiteRepo(f.db).create(s);
    BOOST_REQUIRE_GT(site_id, 0);
    svc::db::Template t;
    t.site_id = site_id;
    t.event = "order";
    t.subject = "Order [order_id] for [customer]";
    t.content = "<p>[customer]</p>";
    svc::db::NotificationRepo(f.db).insert(t);
    svc::db::MergeRepo queries(f.db);
    queries.upsert(site_id, "order", "SELECT customer, id AS order_id FROM demo_orders WHERE id = :master_id");
    queries.upsert(site_id, "order-cte",
                   "WITH o AS (SELECT customer, id FROM demo_orders WHERE id = :master_id)\n"
                   "SELECT customer, id AS order_id FROM o");
  }
  ~MergeFixture() {
    try {
      const std::string id = std::to_string(site_id);
      f.exec("DELETE FROM svc_notification_log WHERE site_id = " + id);
      f.exec("DELETE FROM svc_merge_queries WHERE site_id = " + id);
      f.exec("DELETE FROM svc_notifications WHERE site_id = " + id);
      f.exec("DELETE FROM svc_sites WHERE id = " + id);
    } catch (...) {
    }
  }

  svc::http::Response notify(const std::string& sql) {
    return f.post("/message/notification",
                  R"({"event":"order","email":"to@example.com","master_id":1,"SQL":")" + sql + R"("})",
                  {{"site-id", std::to_string(site_id)}});
  }
  long long queued() {
    return f.count("SELECT COUNT(*) FROM svc_notification_log WHERE site_id = " + std::to_string(site_id));
  }
  std::string last_subject() {
    return f.db.with("SELECT subject FROM svc_notification_log WHERE site_id = ? ORDER BY id DESC LIMIT 1",
                     [&](sql::PreparedStatement& st) {
                       st.setInt64(1, site_id);
                       auto rs = svc::db::query(st);
                       return rs->next() ? std::string(rs->getString(1)) : std::string("(no row)");
                     });
  }
  long long connection_id() { return f.count("SELECT CONNECTION_ID()"); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_named_query_is_refused_without_the_merge_account) {
  MergeFixture m;
  BOOST_REQUIRE(m.f.ctx.merge_db == nullptr);
  const long long connection = m.connection_id();
  for (const char* name : {"order", "order-cte", "no-such-query"}) {
    BOOST_TEST_CONTEXT("SQL " << name) {
      auto reply = m.notify(name);
      BOOST_CHECK_EQUAL(reply.status, 400);
      BOOST_CHECK_EQUAL(reply.body, kNotConfigured);
    }
  }
  BOOST_CHECK_EQUAL(m.queued(), 0);
  // The application connection was not used for merge SQL, so never reset.
  BOOST_CHECK_EQUAL(m.connection_id(), connection);
}

BOOST_AUTO_TEST_CASE(raw_sql_is_refused_without_the_merge_account_even_when_allowed) {
  MergeFixture m(true);
  auto reply = m.notify("SELECT 'x' AS customer");
  BOOST_CHECK_EQUAL(reply.status, 400);
  BOOST_CHECK_EQUAL(reply.body, kNotConfigured);
  BOOST_CHECK_EQUAL(m.queued(), 0);
}

BOOST_AUTO_TEST_CASE(named_queries_run_on_the_merge_account) {
  MergeFixture m;
  BOOST_REQUIRE(m.f.config.merge.configured());
  svc::db::Database merge(m.f.config.merge);
  m.f.ctx.merge_db = &merge;
  const long long connection = m.connection_id();
  for (const char* name : {"order", "order-cte"}) {
    BOOST_TEST_CONTEXT("SQL " << name) {
      auto reply = m.notify(name);
      BOOST_CHECK_EQUAL(reply.status, 200);
      BOOST_CHECK_EQUAL(reply.body, R"({"status":"Success"})");
      BOOST_CHECK_EQUAL(m.last_subject(), "Order 1 for Ada Lovelace");
    }
  }
  BOOST_CHECK_EQUAL(m.queued(), 2);
  BOOST_CHECK_EQUAL(m.connection_id(), connection);
  // An unknown name is still the site's error, not the configuration's.
  auto reply = m.notify("no-such-query");
  BOOST_CHECK_EQUAL(reply.status, 400);
  BOOST_CHECK_NE(reply.body.find("SQL must name a merge query of this site"), std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
