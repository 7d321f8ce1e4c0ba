// RFC 6238 time-based one-time passwords (crypto/totp.hpp): the SHA-1 test
// vectors of RFC 6238 appendix B truncated to 6 digits, the time steps, the
// RFC 4648 base32 vectors and the sealing of a secret to its owner.
#include "crypto/totp.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

#include "crypto/encoding.hpp"

using namespace svc::crypto;

BOOST_AUTO_TEST_SUITE(totp_test)

BOOST_AUTO_TEST_CASE(rfc6238_appendix_b_sha1_vectors) {
  const std::string secret = "12345678901234567890";  // the appendix's SHA-1 seed
  struct Vector {
    long long time;
    const char* code;  // the appendix's 8 digits, last 6 kept
  };
  const Vector vectors[] = {{59, "287082"},         {1111111109, "081804"}, {1111111111, "050471"},
                            {1234567890, "005924"}, {2000000000, "279037"}, {20000000000, "353130"}};
  for (const auto& v : vectors) {
    BOOST_TEST_CONTEXT("T = " << v.time) { BOOST_TEST(totp_code(secret, totp_step(v.time)) == v.code); }
  }
}

BOOST_AUTO_TEST_CASE(steps_are_thirty_seconds_from_the_epoch) {
  BOOST_TEST(totp_step(0) == 0);
  BOOST_TEST(totp_step(29) == 0);
  BOOST_TEST(totp_step(30) == 1);
  BOOST_TEST(totp_step(59) == 1);
  BOOST_TEST(totp_step(1111111109) == 0x23523EC);
  BOOST_TEST(totp_step(-5) == 0);
}

BOOST_AUTO_TEST_CASE(base32_rfc4648_vectors_without_padding) {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "MY"},
                                                         {"fo", "MZXQ"},
                                                         {"foo", "MZXW6"},
                                                         {"foob", "MZXW6YQ"},
                                                         {"fooba", "MZXW6YTB"},
                                                         {"foobar", "MZXW6YTBOI"}};
  for (const auto& [plain, encoded] : vectors) {
    BOOST_TEST(base32_encode(plain) == encoded);
    BOOST_TEST(base32_decode(encoded).value_or("?") == plain);
  }
  BOOST_TEST(base32_decode("mzxw6ytboi======").value_or("?") == "foobar");
  BOOST_TEST(!base32_decode("MZXW1").has_value());  // 1 is not in the alphabet
  const std::string seed = "12345678901234567890";
  BOOST_TEST(base32_encode(seed) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
}

BOOST_AUTO_TEST_CASE(a_sealed_secret_opens_only_for_its_owner_and_key) {
  const std::string key(32, 'k');
  const std::string secret = random_bytes(kTotpSecretBytes);
  const std::string sealed = seal_totp_secret(secret, key, "svc_users:7");
  BOOST_TEST(sealed.find(secret) == std::string::npos);
  BOOST_TEST(open_totp_secret(sealed, key, "svc_users:7").value_or("") == secret);
  BOOST_TEST(!open_totp_secret(sealed, key, "svc_users:8").has_value());
  BOOST_TEST(!open_totp_secret(sealed, std::string(32, 'j'), "svc_users:7").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
