#pragma once
// The caches a worker has (app/services.cpp), set on a fixture's Context:
// the user row, the site and the signing keys are then read once, not per
// request, as in production.
#include "auth/tokens/signing_keys.hpp"
#include "auth/user_cache.hpp"
#include "db_fixture.hpp"
#include "http/site_cache.hpp"

namespace svc::testing {

struct WorkerCaches {
  explicit WorkerCaches(DbFixture& f) {
    f.ctx.user_cache = &users;
    f.ctx.site_cache = &sites;
    f.ctx.signing_keys = &keys;
  }
  auth::UserCache users{1};
  http::SiteCache sites{60};
  auth::SigningKeyCache keys{60};
};

}  // namespace svc::testing
