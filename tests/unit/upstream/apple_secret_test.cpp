// Sign in with Apple's client secret (upstream/apple_secret.hpp): the JWT is
// decoded and its signature checked with the public key of the .p8 (worked
// out apart from the code under test, by `openssl pkey -pubout`); its header
// and claims are Apple's; keys that are not P-256 PKCS#8 are refused.
#include "upstream/apple_secret.hpp"

#include <boost/test/unit_test.hpp>
#include <stdexcept>
#include <string>

#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"
#include "crypto/pkcs8_key.hpp"
#include "crypto/signing_key.hpp"

using namespace svc;

namespace {

constexpr long long kNow = 1700000000;

// A P-256 key in PKCS#8 PEM, as Apple's AuthKey_KEYID.p8 files are.
constexpr const char* kP8 =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg6BFMFT71KZqJAtBH\n"
    "nIk8gmVgdjH0Rozpprf0iGfXBE2hRANCAASkWaUsTWKeEL/qnbDNwYrXnPLqHMzp\n"
    "CR8NLa+03/RKivtghnwH0X/cAaUsL175WYBsgPCGi2NbyUZ269Gr/noW\n"
    "-----END PRIVATE KEY-----\n";
// Its public point (0x04 || X || Y), from openssl.
constexpr const char* kPublicHex =
    "04a459a52c4d629e10bfea9db0cdc18ad79cf2ea1ccce9091f0d2dafb4dff44a8afb60867c07d17fdc01a52c2f5ef959806c80f0868b635bc9"
    "4676ebd1abfe7a16";

// A P-384 key: a PKCS#8 EC key, but not Apple's curve.
constexpr const char* kP384 =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDC4TjBdIzWH/ryfWTqI\n"
    "hnHjtkpFxmJd4VxitH/oZalQQH0FSpMLVPu4bot0uzIP9w2hZANiAAS9m0phgP+u\n"
    "cC1d1xe58dPBTLldsJMwjwbiSbWDf7Z7v2xKcL8ROBt1LJWK0WxAmxP3/nsZ27WW\n"
    "TuykFsg4Eaz10vi/UszCFzKxTV5TzkvDQYiXdBDhKXGvntONUnhkd1I=\n"
    "-----END PRIVATE KEY-----\n";

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

rapidjson::Document part(const std::string& jwt, int index) {
  std::size_t start = 0;
  for (int i = 0; i < index; ++i) start = jwt.find('.', start) + 1;
  const std::size_t end = jwt.find('.', start);
  auto decoded = crypto::base64url_decode(jwt.substr(start, end == std::string::npos ? end : end - start));
  BOOST_REQUIRE(decoded);
  auto doc = crypto::parse_json_object(*decoded);
  BOOST_REQUIRE(doc);
  return std::move(*doc);
}

std::string member(const rapidjson::Document& doc, const char* name) {
  std::string out;
  BOOST_REQUIRE(crypto::read_string(doc, name, out, crypto::Member::kRequired));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(apple_secret_test)

BOOST_AUTO_TEST_CASE(the_client_secret_is_an_es256_jwt_that_the_p8_public_key_verifies) {
  const std::string jwt = upstream::apple_client_secret(kP8, "TEAM123456", "KEY9876543", "com.example.web", kNow);
  const std::size_t last_dot = jwt.rfind('.');
  BOOST_REQUIRE(last_dot != std::string::npos);
  auto key = crypto::SigningKey::load_public("KEY9876543", crypto::SigningAlg::kES256, from_hex(kPublicHex));
  BOOST_REQUIRE(key);
  auto signature = crypto::base64url_decode(jwt.substr(last_dot + 1));
  BOOST_REQUIRE(signature);
  BOOST_CHECK_EQUAL(signature->size(), 64u);  // JWS r || s, not DER
  BOOST_CHECK(key->verify(jwt.substr(0, last_dot), *signature));
  // One byte of the claims changed: the signature no longer holds.
  std::string forged = jwt.substr(0, last_dot);
  forged[forged.size() - 2] = forged[forged.size() - 2] == 'A' ? 'B' : 'A';
  BOOST_CHECK(!key->verify(forged, *signature));

  const auto header = part(jwt, 0);
  BOOST_CHECK_EQUAL(member(header, "alg"), "ES256");
  BOOST_CHECK_EQUAL(member(header, "kid"), "KEY9876543");
  const auto claims = part(jwt, 1);
  BOOST_CHECK_EQUAL(member(claims, "iss"), "TEAM123456");
  BOOST_CHECK_EQUAL(member(claims, "sub"), "com.example.web");
  BOOST_CHECK_EQUAL(member(claims, "aud"), "https://appleid.apple.com");
  BOOST_REQUIRE(claims.HasMember("iat") && claims["iat"].IsInt64() && claims.HasMember("exp") &&
                claims["exp"].IsInt64());
  BOOST_CHECK_EQUAL(claims["iat"].GetInt64(), kNow);
  BOOST_CHECK_GT(claims["exp"].GetInt64(), kNow);
  BOOST_CHECK_LE(claims["exp"].GetInt64(), kNow + 15777000);  // Apple's limit: 6 months
}

BOOST_AUTO_TEST_CASE(the_p8_key_is_read_with_its_public_half) {
  auto material = crypto::es256_from_pkcs8_pem(kP8);
  BOOST_REQUIRE(material);
  BOOST_CHECK(material->public_key == from_hex(kPublicHex));
  BOOST_CHECK_EQUAL(material->private_key.size(), 32u);
  // As `site provider add` reads a secret file: its last line end trimmed.
  const std::string trimmed(kP8, std::string_view(kP8).size() - 1);
  BOOST_CHECK(crypto::es256_from_pkcs8_pem(trimmed));
}

BOOST_AUTO_TEST_CASE(keys_that_are_not_p256_pkcs8_are_refused) {
  BOOST_CHECK(!crypto::es256_from_pkcs8_pem(kP384));
  BOOST_CHECK(!crypto::es256_from_pkcs8_pem(""));
  BOOST_CHECK(!crypto::es256_from_pkcs8_pem("a client secret, not a key"));
  BOOST_CHECK_THROW(upstream::apple_client_secret(kP384, "T", "K", "c", kNow), std::invalid_argument);
  BOOST_CHECK_THROW(upstream::apple_client_secret("secret", "T", "K", "c", kNow), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(team_and_key_ids_are_letters_and_digits) {
  BOOST_CHECK(upstream::valid_apple_id("ABCDE12345"));
  BOOST_CHECK(!upstream::valid_apple_id(""));
  BOOST_CHECK(!upstream::valid_apple_id("ABC DE"));
  BOOST_CHECK(!upstream::valid_apple_id(std::string(33, 'A')));
}

BOOST_AUTO_TEST_SUITE_END()
