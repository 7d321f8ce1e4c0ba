// auth::device_name (auth/session/device.hpp): the new-device mail names a
// device with words of a fixed list, never with the User-Agent's own text
// (issue 48: any text a request sends was printed in the mail).
#include <boost/test/unit_test.hpp>
#include <string>

#include "auth/session/device.hpp"

using svc::auth::device_name;

BOOST_AUTO_TEST_SUITE(device_name_test)

BOOST_AUTO_TEST_CASE(common_browsers_and_systems) {
  struct Case {
    const char* ua;
    const char* name;
  };
  const Case cases[] = {
      {"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
       "Version/17.0 Mobile/15E148 Safari/604.1",
       "Safari on iPhone"},
      {"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 "
       "Safari/537.36 Edg/120.0.0.0",
       "Edge on Windows"},
      {"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/120.0.0.0 Safari/537.36",
       "Chrome on macOS"},
      {"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0", "Firefox on Linux"},
      {"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 "
       "Mobile Safari/537.36",
       "Chrome on Android"},
      {"Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 "
       "Mobile/15E148 Safari/604.1",
       "Chrome on iPad"},
      {"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 "
       "Safari/537.36",
       "Chrome on ChromeOS"},
      {"curl/8.5.0", "a browser on an unknown system"},
      {"", "a browser on an unknown system"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.ua) { BOOST_TEST(device_name(c.ua) == c.name); }
  }
}

BOOST_AUTO_TEST_CASE(no_text_of_the_user_agent_reaches_the_name) {
  const std::string planted =
      "Mozilla/5.0 (Windows NT 10.0) <a href=\"https://evil.example\">Your bank: call +1 555 0100</a> Firefox/1";
  BOOST_TEST(device_name(planted) == "Firefox on Windows");
  std::string longest;
  for (int i = 0; i < 1000; ++i) longest += "Samsung SamsungBrowser/ ";
  BOOST_TEST(device_name(longest).size() <= 40u);
}

BOOST_AUTO_TEST_SUITE_END()
