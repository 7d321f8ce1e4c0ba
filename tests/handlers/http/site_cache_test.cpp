// The per-worker site cache of the messaging endpoints: a site row is reused
// for [server] site_cache_seconds, and an admin change applies after that.
#include "http/site_cache.hpp"

#include <boost/test/unit_test.hpp>

#include "db/site_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(site_cache_test)

namespace {

long long make_site(DbFixture& f) {
  svc::db::Site s;
  s.name = "site-cache-test";
  return svc::db::SiteRepo(f.db).create(s);
}

void deactivate(DbFixture& f, long long id) {
  svc::db::SiteRepo repo(f.db);
  auto s = repo.find(id);
  BOOST_REQUIRE(s);
  s->active = false;
  repo.update(*s);
}

// {} lacks `event`: 400 when the site is accepted, 401 when it is not.
int status_for(DbFixture& f, long long site) {
  return f.post("/message/notification", "{}", {{"site-id", std::to_string(site)}}).status;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_deactivated_site_is_refused_once_the_cached_row_expires) {
  DbFixture f;
  svc::http::SiteCache cache(1);
  f.ctx.site_cache = &cache;
  long long site = make_site(f);
  BOOST_CHECK_EQUAL(status_for(f, site), 400);
  deactivate(f, site);
  BOOST_CHECK_EQUAL(status_for(f, site), 400);  // same second: the cached row
  f.clock.value += 1;
  BOOST_CHECK_EQUAL(status_for(f, site), 401);  // expired: read again, now inactive
  f.clock.value += 5;
  BOOST_CHECK_EQUAL(status_for(f, site), 401);  // inactive rows are refused, cached or not
}

BOOST_AUTO_TEST_CASE(without_a_cache_every_request_reads_the_site) {
  DbFixture f;
  long long site = make_site(f);
  BOOST_CHECK_EQUAL(status_for(f, site), 400);
  deactivate(f, site);
  BOOST_CHECK_EQUAL(status_for(f, site), 401);
}

BOOST_AUTO_TEST_CASE(unknown_sites_are_never_cached) {
  DbFixture f;
  svc::http::SiteCache cache(60);
  f.ctx.site_cache = &cache;
  BOOST_CHECK_EQUAL(status_for(f, 999999999), 401);
  BOOST_CHECK(cache.get(999999999, f.clock.value) == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
