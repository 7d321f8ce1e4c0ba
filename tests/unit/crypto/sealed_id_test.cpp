// Encrypted ids: round trip, purpose separation, tampering, and the wire
// format rebuilt by hand (and by PHP) so docs can state it precisely.
#include "crypto/sealed_id.hpp"

#include <sodium.h>

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "crypto/encoding.hpp"

using namespace svc::crypto;

namespace {

const std::string kKey(32, 'k');
const std::string kNonce = *base64url_decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYX");
constexpr long long kExp = 1700000000;

const unsigned char* u8(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

// The documented format, built directly on libsodium.
std::string mint_by_hand(std::string_view json, std::string_view ad, std::string_view key = kKey,
                         std::string_view nonce = kNonce) {
  std::string ct(json.size() + crypto_aead_xchacha20poly1305_ietf_ABYTES, '\0');
  unsigned long long ct_len = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(reinterpret_cast<unsigned char*>(ct.data()), &ct_len, u8(json),
                                             json.size(), u8(ad), ad.size(), nullptr, u8(nonce), u8(key));
  return base64url_encode(std::string(nonce) + ct);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sealed_id_test)

BOOST_AUTO_TEST_CASE(round_trip_both_purposes) {
  for (IdPurpose purpose : {IdPurpose::User, IdPurpose::Customer}) {
    for (long long id : {1LL, 42LL, 9007199254740993LL}) {
      const std::string token = seal_id(id, kExp, purpose, kKey);
      const auto opened = open_id(token, purpose, kKey);
      BOOST_TEST_REQUIRE(opened.has_value());
      BOOST_TEST(opened->id == id);
      BOOST_TEST(opened->exp == kExp);
    }
  }
  // Fresh nonce each time.
  BOOST_TEST(seal_id(1, kExp, IdPurpose::User, kKey) != seal_id(1, kExp, IdPurpose::User, kKey));
}

BOOST_AUTO_TEST_CASE(purposes_do_not_mix) {
  BOOST_TEST(!open_id(seal_id(1, kExp, IdPurpose::User, kKey), IdPurpose::Customer, kKey));
  BOOST_TEST(!open_id(seal_id(1, kExp, IdPurpose::Customer, kKey), IdPurpose::User, kKey));
}

BOOST_AUTO_TEST_CASE(expiry_is_left_to_the_caller) {
  const auto opened = open_id(seal_id(5, 1, IdPurpose::User, kKey), IdPurpose::User, kKey);
  BOOST_TEST_REQUIRE(opened.has_value());
  BOOST_TEST(opened->exp == 1);
}

BOOST_AUTO_TEST_CASE(any_flipped_byte_is_refused) {
  const std::string raw = *base64url_decode(seal_id(42, kExp, IdPurpose::User, kKey));
  for (std::size_t i = 0; i < raw.size(); ++i) {
    std::string bad = raw;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    BOOST_TEST(!open_id(base64url_encode(bad), IdPurpose::User, kKey), "byte " << i);
  }
}

BOOST_AUTO_TEST_CASE(wrong_key_is_refused) {
  const std::string token = seal_id(42, kExp, IdPurpose::User, kKey);
  BOOST_TEST(!open_id(token, IdPurpose::User, std::string(32, 'j')));
  BOOST_TEST(!open_id(token, IdPurpose::User, kKey.substr(0, 31)));
  BOOST_TEST(!open_id(token, IdPurpose::User, ""));
  BOOST_CHECK_THROW(seal_id(42, kExp, IdPurpose::User, kKey.substr(0, 31)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(truncated_and_garbage_tokens_are_refused) {
  const std::string token = seal_id(42, kExp, IdPurpose::User, kKey);
  const std::string raw = *base64url_decode(token);
  const std::vector<std::string> bad = {
      token.substr(0, token.size() - 1),
      base64url_encode(raw.substr(0, raw.size() - 1)),
      base64url_encode(raw.substr(0, 40)),  // nonce + tag, no plaintext
      base64url_encode(raw.substr(0, 24)),
      token + "=",
      token + "A",
      " " + token,
      "",
      "not a token!",
      "====",
      std::string(2000, 'A'),
  };
  for (const std::string& t : bad) {
    BOOST_TEST(!open_id(t, IdPurpose::User, kKey), "token '" << t << "'");
  }
}

BOOST_AUTO_TEST_CASE(seal_id_writes_the_documented_format) {
  const std::string raw = *base64url_decode(seal_id(42, kExp, IdPurpose::Customer, kKey));
  const std::string json = R"({"uid":42,"exp":1700000000})";
  BOOST_TEST_REQUIRE(raw.size() == 24 + json.size() + 16);
  std::string plain(json.size(), '\0');
  unsigned long long plain_len = 0;
  const std::string_view ad = "svc:customer-id:v1";
  const std::string_view ct = std::string_view(raw).substr(24);
  BOOST_TEST_REQUIRE(crypto_aead_xchacha20poly1305_ietf_decrypt(reinterpret_cast<unsigned char*>(plain.data()),
                                                                &plain_len, nullptr, u8(ct), ct.size(), u8(ad),
                                                                ad.size(), u8(raw), u8(kKey)) == 0);
  BOOST_TEST(plain == json);
}

BOOST_AUTO_TEST_CASE(opens_tokens_minted_by_hand) {
  const auto user = open_id(mint_by_hand(R"({"uid":7,"exp":123})", "svc:user-id:v1"), IdPurpose::User, kKey);
  BOOST_TEST_REQUIRE(user.has_value());
  BOOST_TEST(user->id == 7);
  BOOST_TEST(user->exp == 123);

  const auto customer = open_id(mint_by_hand(R"( { "exp" : 9 , "uid" : 8 , "extra" : true } )", "svc:customer-id:v1"),
                                IdPurpose::Customer, kKey);
  BOOST_TEST_REQUIRE(customer.has_value());
  BOOST_TEST(customer->id == 8);
  BOOST_TEST(customer->exp == 9);
}

// PHP minting the same token (key "k"*32, nonce 00..17):
//   php -r '$n=hex2bin("000102030405060708090a0b0c0d0e0f1011121314151617");
//     $c=sodium_crypto_aead_xchacha20poly1305_ietf_encrypt(
//       "{\"uid\":42,\"exp\":1700000000}", "svc:user-id:v1", $n,
//       str_repeat("k",32));
//     echo sodium_bin2base64($n.$c, SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);'
BOOST_AUTO_TEST_CASE(opens_token_minted_by_php) {
  const std::string php =
      "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXrNG16Wqeg-u9Z5S8k1jA1eLAMWkljGGkoEoQZtN3"
      "_cD3R_9gdUIomrOq3Q";
  BOOST_TEST(mint_by_hand(R"({"uid":42,"exp":1700000000})", "svc:user-id:v1") == php);
  const auto opened = open_id(php, IdPurpose::User, kKey);
  BOOST_TEST_REQUIRE(opened.has_value());
  BOOST_TEST(opened->id == 42);
  BOOST_TEST(opened->exp == kExp);
}

BOOST_AUTO_TEST_CASE(authentic_but_malformed_plaintext_is_refused) {
  for (const std::string json : {R"({"uid":"42","exp":1})", R"({"uid":1.5,"exp":1})", R"({"uid":1})", R"({"exp":1})",
                                 R"({"uid":1,"uid":2,"exp":1})", R"([1,2])", "42", "", R"({"uid":1,"exp":1}x)",
                                 R"({"uid":99999999999999999999,"exp":1})"}) {
    BOOST_TEST(!open_id(mint_by_hand(json, "svc:user-id:v1"), IdPurpose::User, kKey), "plaintext '" << json << "'");
  }
}

BOOST_AUTO_TEST_SUITE_END()
