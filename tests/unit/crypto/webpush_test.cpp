// RFC 8291 Web Push encryption: the RFC's own example byte for byte, then the
// refusals and a round trip through the receiving side.
#include "crypto/webpush.hpp"

#include <rapidjson/document.h>
#include <sodium.h>

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>

using svc::crypto::decrypt_aes128gcm;
using svc::crypto::EceKeys;
using svc::crypto::encrypt_aes128gcm;
using svc::crypto::encrypt_push_payload;
using svc::crypto::generate_p256_keypair;
using svc::crypto::kMaxPushPayload;

namespace {

std::string b64url_decode(const std::string& in) {
  std::string out(in.size(), '\0');
  std::size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), in.data(), in.size(), nullptr, &len,
                        nullptr, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
    throw std::runtime_error("bad base64url in test data: " + in);
  }
  out.resize(len);
  return out;
}

struct Rfc8291Example {
  std::string plaintext, as_private, as_public, ua_private, ua_public, auth_secret, salt, expected;
  std::uint32_t record_size = 0;

  Rfc8291Example() {
    std::ifstream file(SVC_TESTDATA_DIR "/rfc8291-example.json");
    BOOST_REQUIRE_MESSAGE(file, "cannot open rfc8291-example.json");
    std::stringstream text;
    text << file.rdbuf();
    rapidjson::Document doc;
    doc.Parse(text.str().c_str());
    BOOST_REQUIRE(!doc.HasParseError() && doc.IsObject());
    auto field = [&](const char* name) { return std::string(doc[name].GetString()); };
    plaintext = field("plaintext");
    as_private = b64url_decode(field("as_private"));
    as_public = b64url_decode(field("as_public"));
    ua_private = b64url_decode(field("ua_private"));
    ua_public = b64url_decode(field("ua_public"));
    auth_secret = b64url_decode(field("auth_secret"));
    salt = b64url_decode(field("salt"));
    expected = b64url_decode(field("expected"));
    record_size = doc["record_size"].GetUint();
  }
  EceKeys as_keys() const { return {as_private, as_public}; }
  EceKeys ua_keys() const { return {ua_private, ua_public}; }
};

std::string random_bytes(std::size_t n) {
  std::string s(n, '\0');
  randombytes_buf(s.data(), s.size());
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(webpush_test)

BOOST_AUTO_TEST_CASE(rfc8291_example_is_reproduced_byte_for_byte) {
  const Rfc8291Example ex;
  const auto body =
      encrypt_aes128gcm(ex.plaintext, ex.ua_public, ex.auth_secret, ex.as_keys(), ex.salt, ex.record_size);
  BOOST_REQUIRE(body.has_value());
  BOOST_TEST(body->size() == ex.expected.size());
  BOOST_TEST(*body == ex.expected);
}

BOOST_AUTO_TEST_CASE(rfc8291_example_decrypts_on_the_receiving_side) {
  const Rfc8291Example ex;
  const auto plain = decrypt_aes128gcm(ex.expected, ex.ua_keys(), ex.auth_secret);
  BOOST_REQUIRE(plain.has_value());
  BOOST_TEST(*plain == ex.plaintext);

  std::string tampered = ex.expected;
  tampered.back() = static_cast<char>(tampered.back() ^ 0x01);
  BOOST_TEST(!decrypt_aes128gcm(tampered, ex.ua_keys(), ex.auth_secret).has_value());
  BOOST_TEST(!decrypt_aes128gcm(ex.expected, ex.ua_keys(), random_bytes(16)).has_value());
  BOOST_TEST(!decrypt_aes128gcm(ex.expected.substr(0, 90), ex.ua_keys(), ex.auth_secret));
}

BOOST_AUTO_TEST_CASE(push_payload_round_trips_with_fresh_keys_and_salt) {
  const EceKeys ua = generate_p256_keypair();
  BOOST_TEST(ua.private_key.size() == 32u);
  BOOST_TEST(ua.public_key.size() == 65u);
  BOOST_TEST(ua.public_key[0] == '\x04');
  const std::string auth = random_bytes(16);
  const std::string message = R"({"title":"Hi","body":"Your order shipped"})";

  const auto first = encrypt_push_payload(message, ua.public_key, auth);
  const auto second = encrypt_push_payload(message, ua.public_key, auth);
  BOOST_REQUIRE(first && second);
  BOOST_TEST(first->size() == 86 + message.size() + 1 + 16);
  BOOST_TEST(first->substr(0, 16) != second->substr(0, 16));    // salt
  BOOST_TEST(first->substr(21, 65) != second->substr(21, 65));  // sender key
  BOOST_TEST(first->substr(16, 5) == std::string("\x00\x00\x10\x00\x41", 5));
  BOOST_TEST(decrypt_aes128gcm(*first, ua, auth).value_or("?") == message);
  BOOST_TEST(decrypt_aes128gcm(*second, ua, auth).value_or("?") == message);
  BOOST_TEST(decrypt_aes128gcm(encrypt_push_payload("", ua.public_key, auth).value(), ua, auth).value_or("?") == "");
}

BOOST_AUTO_TEST_CASE(oversize_payload_is_refused) {
  const EceKeys ua = generate_p256_keypair();
  const std::string auth = random_bytes(16);
  const auto largest = encrypt_push_payload(std::string(kMaxPushPayload, 'x'), ua.public_key, auth);
  BOOST_REQUIRE(largest.has_value());
  BOOST_TEST(largest->size() == 4096u);
  BOOST_TEST(!encrypt_push_payload(std::string(kMaxPushPayload + 1, 'x'), ua.public_key, auth));

  // A smaller record size lowers the limit: the one record must fit in rs.
  const EceKeys as = generate_p256_keypair();
  const std::string salt = random_bytes(16);
  BOOST_TEST(encrypt_aes128gcm(std::string(83, 'x'), ua.public_key, auth, as, salt, 100).has_value());
  BOOST_TEST(!encrypt_aes128gcm(std::string(84, 'x'), ua.public_key, auth, as, salt, 100));
  BOOST_TEST(!encrypt_aes128gcm("", ua.public_key, auth, as, salt, 17));
}

BOOST_AUTO_TEST_CASE(bad_key_material_is_refused) {
  const Rfc8291Example ex;
  const EceKeys as = ex.as_keys();
  auto encrypt = [&](const std::string& ua_public, const std::string& auth, const EceKeys& keys,
                     const std::string& salt) {
    return encrypt_aes128gcm("hello", ua_public, auth, keys, salt).has_value();
  };
  BOOST_TEST(encrypt(ex.ua_public, ex.auth_secret, as, ex.salt));  // control

  std::string off_curve = ex.ua_public;
  off_curve[64] = static_cast<char>(off_curve[64] ^ 0x01);
  std::string compressed_prefix = ex.ua_public;
  compressed_prefix[0] = '\x02';
  const std::string cases[] = {
      "", ex.ua_public.substr(0, 64), ex.ua_public + "x", off_curve, compressed_prefix, std::string(65, '\0'),
  };
  for (const auto& bad : cases) BOOST_TEST(!encrypt(bad, ex.auth_secret, as, ex.salt));

  BOOST_TEST(!encrypt(ex.ua_public, ex.auth_secret.substr(0, 15), as, ex.salt));
  BOOST_TEST(!encrypt(ex.ua_public, ex.auth_secret, as, ex.salt.substr(0, 8)));
  // Sender pair whose halves do not belong together, or a zero scalar.
  BOOST_TEST(!encrypt(ex.ua_public, ex.auth_secret, EceKeys{ex.ua_private, ex.as_public}, ex.salt));
  BOOST_TEST(!encrypt(ex.ua_public, ex.auth_secret, EceKeys{std::string(32, '\0'), ex.as_public}, ex.salt));
  BOOST_TEST(!encrypt(ex.ua_public, ex.auth_secret, EceKeys{ex.as_private, ""}, ex.salt));
}

BOOST_AUTO_TEST_SUITE_END()
