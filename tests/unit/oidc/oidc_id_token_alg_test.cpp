// ID tokens per client algorithm (issue 39, docs/decisions.md "Issue 39: ID
// token algorithm per client"): the key set keeps the newest active key of
// each algorithm able to sign, the access-token signer stays the newest
// active ES256/EdDSA key, and an ES256 or EdDSA ID token carries its alg and
// kid and reads back against the published keys.
#include <sodium.h>

#include <boost/test/unit_test.hpp>

#include "auth/tokens/signing_keys.hpp"
#include "crypto/encoding.hpp"
#include "crypto/signing_key.hpp"
#include "oidc/id_token.hpp"

using namespace svc;

namespace {

const std::string kKek(32, 'k');

db::SigningKeyRow row(const std::string& kid, crypto::SigningAlg alg, long long activate_at) {
  const crypto::SigningKeyMaterial m = crypto::generate_signing_key(alg);
  db::SigningKeyRow r;
  r.kid = kid;
  r.alg = std::string(crypto::alg_name(alg));
  r.public_key = crypto::base64url_encode(m.public_key);
  r.private_key_sealed = crypto::base64url_encode(crypto::seal_private_key(m.private_key, kKek, kid));
  r.created_at = activate_at;
  r.activate_at = activate_at;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(oidc_id_token_alg_test)

BOOST_AUTO_TEST_CASE(the_key_set_holds_the_newest_active_key_of_each_algorithm) {
  using crypto::SigningAlg;
  // Newest activate_at first, as SigningKeyRepo::published returns them.
  const std::vector<db::SigningKeyRow> rows = {
      row("ed-next", SigningAlg::kEdDSA, 2000),  // published, not active yet
      row("es-2", SigningAlg::kES256, 900),     row("rs-1", SigningAlg::kRS256, 800),
      row("ed-1", SigningAlg::kEdDSA, 700),     row("es-1", SigningAlg::kES256, 600),
  };
  const auth::KeySet set = auth::build_key_set(rows, 1000, kKek, nullptr);
  BOOST_REQUIRE(set.signer.has_value());
  BOOST_TEST(set.signer->kid() == "es-2");
  for (auto [alg, kid] : {std::pair{SigningAlg::kRS256, "rs-1"}, std::pair{SigningAlg::kES256, "es-2"},
                          std::pair{SigningAlg::kEdDSA, "ed-1"}}) {
    const crypto::SigningKey* key = set.current(alg);
    BOOST_REQUIRE(key != nullptr);
    BOOST_TEST(key->kid() == kid);
    BOOST_TEST(key->can_sign());
  }
  BOOST_TEST(set.published.size() == 5u);
  // Reloaded with the same rows, the signing keys are reused as they are.
  const auth::KeySet again = auth::build_key_set(rows, 1000, kKek, &set);
  BOOST_TEST(again.current(SigningAlg::kEdDSA)->kid() == "ed-1");
  BOOST_TEST(again.current(SigningAlg::kEdDSA)->can_sign());
}

BOOST_AUTO_TEST_CASE(without_a_key_of_an_algorithm_there_is_no_current_one) {
  const std::vector<db::SigningKeyRow> rows = {row("rs-1", crypto::SigningAlg::kRS256, 10)};
  const auth::KeySet set = auth::build_key_set(rows, 1000, kKek, nullptr);
  BOOST_TEST(!set.signer.has_value(), "an RS256 key never signs access tokens");
  BOOST_TEST(set.current(crypto::SigningAlg::kRS256) != nullptr);
  BOOST_TEST(set.current(crypto::SigningAlg::kES256) == nullptr);
  BOOST_TEST(set.current(crypto::SigningAlg::kEdDSA) == nullptr);
}

BOOST_AUTO_TEST_CASE(es256_and_eddsa_id_tokens_carry_their_alg_and_read_back) {
  const std::vector<db::SigningKeyRow> rows = {row("es-1", crypto::SigningAlg::kES256, 10),
                                               row("ed-1", crypto::SigningAlg::kEdDSA, 10),
                                               row("rs-1", crypto::SigningAlg::kRS256, 10)};
  const auth::KeySet set = auth::build_key_set(rows, 1000, kKek, nullptr);
  oidc::IdClaims c;
  c.iss = "https://svc.example/oidc/1";
  c.sub = "7";
  c.aud = "client-a";
  c.iat = 1000;
  c.exp = 1300;
  c.sid = "sid-1";
  db::User user;
  for (auto [alg, header] : {std::pair{crypto::SigningAlg::kES256, R"({"alg":"ES256","typ":"JWT","kid":"es-1"})"},
                             std::pair{crypto::SigningAlg::kEdDSA, R"({"alg":"EdDSA","typ":"JWT","kid":"ed-1"})"}}) {
    const std::string token = oidc::sign_id_token(c, user, "openid", *set.current(alg));
    BOOST_TEST(crypto::base64url_decode(token.substr(0, token.find('.'))).value_or("") == header);
    auto hint = oidc::read_id_token_hint(token, set.published, c.iss);
    BOOST_REQUIRE(hint.has_value());
    BOOST_TEST(hint->sid == "sid-1");
  }
}

// Core 3.1.3.6: the hash of the alg's own; for EdDSA (Ed25519) SHA-512, its
// left 32 bytes (OpenID Connect issue 1125's resolution).
BOOST_AUTO_TEST_CASE(at_hash_follows_the_algorithm) {
  const std::string token = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y";
  for (auto alg : {crypto::SigningAlg::kRS256, crypto::SigningAlg::kES256}) {
    BOOST_TEST(oidc::at_hash(token, alg) == "77QmUPtjPfzWtF2AnpK9RQ");
  }
  unsigned char digest[crypto_hash_sha512_BYTES];
  crypto_hash_sha512(digest, reinterpret_cast<const unsigned char*>(token.data()), token.size());
  const std::string left(reinterpret_cast<const char*>(digest), 32);
  BOOST_TEST(oidc::at_hash(token, crypto::SigningAlg::kEdDSA) == crypto::base64url_encode(left));
  BOOST_TEST(oidc::at_hash(token, crypto::SigningAlg::kEdDSA).size() == 43u);
}

BOOST_AUTO_TEST_SUITE_END()
