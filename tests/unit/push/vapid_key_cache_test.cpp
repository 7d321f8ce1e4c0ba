// The per-process cache of parsed VAPID keys (push/vapid_key_cache.hpp):
// one parse per site and key text, new stored keys take effect at once, and
// unusable keys give no signer.
#include "push/vapid_key_cache.hpp"

#include <boost/test/unit_test.hpp>

#include "crypto/encoding.hpp"
#include "crypto/vapid.hpp"

using svc::push::VapidKeyCache;

namespace {

svc::db::Site site_with(long long id, const svc::crypto::VapidKeys& keys) {
  svc::db::Site site;
  site.id = id;
  site.vapid_public_key = svc::crypto::base64url_encode(keys.public_key);
  site.vapid_private_key = svc::crypto::base64url_encode(keys.private_key);
  return site;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vapid_key_cache_test)

BOOST_AUTO_TEST_CASE(keys_are_parsed_per_site_and_replaced_when_they_change) {
  VapidKeyCache cache;
  svc::db::Site site = site_with(3, svc::crypto::generate_vapid_keys());
  BOOST_TEST(cache.signer(site).has_value());
  BOOST_TEST(cache.signer(site_with(4, svc::crypto::generate_vapid_keys())).has_value());
  BOOST_TEST(cache.size() == 2u);
  // svc-admin vapid-keys stored a broken pair: the next push sees it.
  const auto other = svc::crypto::generate_vapid_keys();
  site.vapid_public_key = svc::crypto::base64url_encode(other.public_key);
  BOOST_TEST(!cache.signer(site).has_value());
  BOOST_TEST(!cache.signer(site).has_value(), "remembered, still refused");
  site = site_with(3, other);
  BOOST_TEST(cache.signer(site).has_value());
  BOOST_TEST(cache.size() == 2u);
}

BOOST_AUTO_TEST_CASE(site_without_keys_has_no_signer) {
  VapidKeyCache cache;
  svc::db::Site site;
  site.id = 9;
  BOOST_TEST(!cache.signer(site).has_value());
  site.vapid_public_key = "not base64url!";
  site.vapid_private_key = "x";
  BOOST_TEST(!cache.signer(site).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
