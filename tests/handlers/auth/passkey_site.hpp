#pragma once
// What the passkey handler tests share: unique names and a fresh site with a
// relying party, on the stack's database.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <ctime>
#include <string>

#include "db/passkey_repo.hpp"
#include "db/site_repo.hpp"
#include "db_fixture.hpp"

namespace svc::testing {

// `prefix` with this process, the time and a counter: unique across runs.
inline std::string unique(const std::string& prefix) {
  static int serial = 0;
  return prefix + std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr) % 100000) + "-" +
         std::to_string(++serial);
}

// A new site whose RP id is `host` and whose one origin is https://host.
inline long long site_with_rp(DbFixture& f, const std::string& host) {
  db::Site site;
  site.name = unique(host + "-");
  site.domain = host;
  const long long id = db::SiteRepo(f.db).create(site);
  db::PasskeyRepo(f.db).set_rp(id, host, {"https://" + host});
  return id;
}

// Stores a passkey of `user` (the first auth table) on `site` with the
// counter `sign_count`, made at the fixed clock's time; returns its id.
// Its key is no key: fit for the routes that never verify a signature.
inline long long add_passkey(DbFixture& f, long long site, long long user, const std::string& name,
                             long long sign_count = 0) {
  db::Passkey k;
  k.site_id = site;
  k.table = f.config.auth.tables.front();
  k.user_id = user;
  k.credential_id = unique("cred-");
  k.public_key = "x";
  k.alg = -7;
  k.user_handle = "h";
  k.sign_count = sign_count;
  k.name = name;
  k.created_at = f.clock.value;
  auto id = db::PasskeyRepo(f.db).insert(k, unique("hash-"));
  BOOST_REQUIRE(id.has_value());
  return *id;
}

}  // namespace svc::testing
