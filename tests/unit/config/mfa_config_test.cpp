// [keys] mfa_key (config/config.hpp): optional (empty = the second factor
// cannot be set up), else base64url of exactly 32 bytes.
#include <boost/test/unit_test.hpp>
#include <string>
#include <utility>

#include "config/config.hpp"
#include "config/ini.hpp"
#include "crypto/encoding.hpp"

using namespace svc::config;

namespace {

const std::string kKey32 = svc::crypto::base64url_encode(std::string(32, 'k'));

IniValues required_values() {
  return {{"database.user", "svc"}, {"keys.jwt_kid", "k1"},     {"keys.jwt_secret", kKey32}, {"keys.id_key", kKey32},
          {"keys.sms_key", kKey32}, {"keys.reset_key", kKey32}, {"keys.signing_kek", kKey32}};
}

std::string error_of(const IniValues& values) {
  try {
    parse_config(values, "svc.conf");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(mfa_config_test)

BOOST_AUTO_TEST_CASE(mfa_key_is_optional_and_exactly_32_bytes) {
  BOOST_TEST(parse_config(required_values(), "svc.conf").keys.mfa_key.empty());
  IniValues with_key = required_values();
  with_key["keys.mfa_key"] = svc::crypto::base64url_encode(std::string(32, 'm'));
  BOOST_TEST(parse_config(with_key, "svc.conf").keys.mfa_key == std::string(32, 'm'));
  IniValues short_key = required_values();
  short_key["keys.mfa_key"] = svc::crypto::base64url_encode(std::string(31, 'm'));
  BOOST_TEST(error_of(short_key) == "configuration key [keys] mfa_key: expected base64url of 32 bytes");
  IniValues long_key = required_values();
  long_key["keys.mfa_key"] = svc::crypto::base64url_encode(std::string(33, 'm'));
  BOOST_TEST(error_of(long_key) == "configuration key [keys] mfa_key: expected base64url of 32 bytes");
}

// Issue 36: the lock on wrong second-factor answers and the service's own
// sender.
BOOST_AUTO_TEST_CASE(mfa_lock_keys_have_defaults_and_bounds) {
  const Config defaults = parse_config(required_values(), "svc.conf");
  BOOST_TEST(defaults.auth.mfa_lock.lock_after == 5);
  BOOST_TEST(defaults.auth.mfa_lock.lock_seconds == 60);
  BOOST_TEST(defaults.auth.mfa_lock.max_wrong_daily == 20);
  BOOST_TEST(defaults.smtp.from.empty());
  IniValues set = required_values();
  set["auth.mfa_lock_after"] = "3";
  set["auth.mfa_lock_seconds"] = "300";
  set["auth.mfa_max_wrong_daily"] = "12";
  set["smtp.from"] = "Accounts <accounts@example.com>";
  const Config c = parse_config(set, "svc.conf");
  BOOST_TEST(c.auth.mfa_lock.lock_after == 3);
  BOOST_TEST(c.auth.mfa_lock.lock_seconds == 300);
  BOOST_TEST(c.auth.mfa_lock.max_wrong_daily == 12);
  BOOST_TEST(c.smtp.from == "Accounts <accounts@example.com>");
  for (const auto& [key, value] : {std::pair{"auth.mfa_lock_after", "0"}, std::pair{"auth.mfa_lock_seconds", "86401"},
                                   std::pair{"auth.mfa_max_wrong_daily", "1001"}, std::pair{"smtp.from", "Accounts"}}) {
    IniValues bad = required_values();
    bad[key] = value;
    BOOST_TEST(error_of(bad).find(std::string(key).substr(std::string(key).find('.') + 1)) != std::string::npos,
               key << " = " << value << ": " << error_of(bad));
  }
}

BOOST_AUTO_TEST_SUITE_END()
