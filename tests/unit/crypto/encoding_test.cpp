// Known-answer and rejection tests for crypto/encoding.
#include "crypto/encoding.hpp"

#include <sodium.h>

#include <boost/test/unit_test.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace svc::crypto;

BOOST_AUTO_TEST_SUITE(encoding_test)

struct Vector {
  std::string bytes;
  std::string b64;
  std::string b64url;
};

// RFC 4648 §10 plus bytes that differ between the two alphabets.
const std::vector<Vector> kVectors = {
    {"", "", ""},
    {"f", "Zg==", "Zg"},
    {"fo", "Zm8=", "Zm8"},
    {"foo", "Zm9v", "Zm9v"},
    {"foob", "Zm9vYg==", "Zm9vYg"},
    {"fooba", "Zm9vYmE=", "Zm9vYmE"},
    {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
    {std::string("\xfb\xff\xbf", 3), "+/+/", "-_-_"},
    {std::string("\0\0", 2), "AAA=", "AAA"},
};

BOOST_AUTO_TEST_CASE(encodes_and_decodes_rfc4648_vectors) {
  for (const Vector& v : kVectors) {
    BOOST_TEST_CONTEXT("bytes " << hex_encode(v.bytes)) {
      BOOST_TEST(base64_encode(v.bytes) == v.b64);
      BOOST_TEST(base64url_encode(v.bytes) == v.b64url);
      BOOST_TEST(base64_decode(v.b64).value_or("(invalid)") == v.bytes);
      BOOST_TEST(base64url_decode(v.b64url).value_or("(invalid)") == v.bytes);
    }
  }
}

BOOST_AUTO_TEST_CASE(base64url_decode_rejects_non_canonical_input) {
  for (const std::string bad :
       {"Zg==", "Zg=", "Z", "Zh", "Zm9v\n", " Zm9v", "Zm 9v", "+/+/", "Zm9v!", "====", "Zm9vY"}) {
    BOOST_TEST_CONTEXT("input '" << bad << "'") { BOOST_TEST(!base64url_decode(bad).has_value()); }
  }
}

BOOST_AUTO_TEST_CASE(base64_decode_requires_padding_and_standard_alphabet) {
  for (const std::string bad : {"Zg", "Zm8", "-_-_", "Zg=", "Z===", "Zh=="}) {
    BOOST_TEST_CONTEXT("input '" << bad << "'") { BOOST_TEST(!base64_decode(bad).has_value()); }
  }
}

BOOST_AUTO_TEST_CASE(hex_encodes_lower_case) {
  BOOST_TEST(hex_encode(std::string("\x00\x01\xab\xff", 4)) == "0001abff");
  BOOST_TEST(hex_encode("") == "");
}

BOOST_AUTO_TEST_CASE(constant_time_equal_compares_contents_and_lengths) {
  struct Case {
    std::string a, b;
    bool equal;
  };
  const std::vector<Case> cases = {
      {"", "", true},       {"abc", "abc", true}, {"abc", "abd", false},
      {"abc", "ab", false}, {"", "a", false},     {std::string("a\0b", 3), std::string("a\0c", 3), false},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.a << " vs " << c.b) { BOOST_TEST(constant_time_equal(c.a, c.b) == c.equal); }
  }
}

// RFC 4231 test cases 1, 2 and 6 (case 6: key longer than the block size).
BOOST_AUTO_TEST_CASE(hmac_sha256_matches_rfc4231) {
  BOOST_TEST(hex_encode(hmac_sha256(std::string(20, '\x0b'), "Hi There")) ==
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  BOOST_TEST(hex_encode(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  BOOST_TEST(
      hex_encode(hmac_sha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")) ==
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

BOOST_AUTO_TEST_CASE(hmac_sha256_accepts_empty_key_and_message) {
  // php -r 'echo hash_hmac("sha256", "", "");'
  BOOST_TEST(hex_encode(hmac_sha256("", "")) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

BOOST_AUTO_TEST_CASE(random_bytes_has_requested_length_and_varies) {
  BOOST_TEST(random_bytes(0).size() == 0u);
  const std::string a = random_bytes(32);
  BOOST_TEST(a.size() == 32u);
  BOOST_TEST(a != random_bytes(32));
}

// libsodium's codec, which crypto/encoding replaced, as the reference.
std::string sodium_encode(const std::string& bytes, int variant) {
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                    variant);
  out.resize(out.size() - 1);
  return out;
}

std::optional<std::string> sodium_decode(const std::string& text, int variant) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  std::size_t written = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(), text.size(), nullptr,
                        &written, nullptr, variant) != 0) {
    return std::nullopt;
  }
  out.resize(written);
  return out;
}

// Every byte string up to 40 bytes of a seeded sample encodes as libsodium
// encodes it, and every string of a sample drawn from both alphabets, '=',
// and a few bytes outside them (with lengths 0-12, so every padding case
// comes up) decodes, or is refused, as libsodium does.
BOOST_AUTO_TEST_CASE(codec_agrees_with_libsodium) {
  BOOST_REQUIRE(sodium_init() >= 0);
  std::mt19937 rng(20261126);
  int decoded = 0, refused = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes(rng() % 41, '\0');
    for (char& b : bytes) b = static_cast<char>(rng());
    BOOST_REQUIRE_EQUAL(base64url_encode(bytes), sodium_encode(bytes, sodium_base64_VARIANT_URLSAFE_NO_PADDING));
    BOOST_REQUIRE_EQUAL(base64_encode(bytes), sodium_encode(bytes, sodium_base64_VARIANT_ORIGINAL));

    static const std::string kChars = "AZaz09+/-_=AQgw\x00\x80\xff .@";
    std::string text(rng() % 13, 'A');
    for (char& c : text) c = kChars[rng() % kChars.size()];
    // Half of the samples start from a valid encoding with one character changed.
    if (round % 2 == 0) {
      text = (round % 4 == 0) ? base64_encode(bytes) : base64url_encode(bytes);
      if (!text.empty() && rng() % 2 == 0) text[rng() % text.size()] = kChars[rng() % kChars.size()];
    }
    const auto ours_url = base64url_decode(text), ours_std = base64_decode(text);
    BOOST_TEST_CONTEXT("text '" << text << "'") {
      BOOST_REQUIRE(ours_url == sodium_decode(text, sodium_base64_VARIANT_URLSAFE_NO_PADDING));
      BOOST_REQUIRE(ours_std == sodium_decode(text, sodium_base64_VARIANT_ORIGINAL));
    }
    (ours_url ? decoded : refused)++;
  }
  // The sample exercised both outcomes.
  BOOST_TEST(decoded > 1000);
  BOOST_TEST(refused > 1000);
}

BOOST_AUTO_TEST_SUITE_END()
