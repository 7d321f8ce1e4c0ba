// core::printable: the one helper that makes foreign text fit for a log field
// (used by the SMTP session and the push client).
#include "core/printable.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

BOOST_AUTO_TEST_SUITE(printable_test)

BOOST_AUTO_TEST_CASE(controls_go_utf8_stays_long_text_is_cut) {
  struct Case {
    const char* label;
    std::string in;
    std::size_t max;
    std::string out;
  };
  const std::string long_ascii(250, 'a');
  const Case cases[] = {
      {"plain", "550 mailbox unavailable", 200, "550 mailbox unavailable"},
      {"CR LF NUL tab DEL", std::string("a\r\nb\0c\td\x7f", 10), 200, "abcd"},
      {"UTF-8 kept",
       "Gr\xc3\xbc\xc3\x9f"
       "e",
       200,
       "Gr\xc3\xbc\xc3\x9f"
       "e"},
      {"invalid byte",
       "a\xff"
       "b",
       200,
       "a\xef\xbf\xbd"
       "b"},
      {"at the limit", std::string(200, 'a'), 200, std::string(200, 'a')},
      {"past the limit", long_ascii, 200, std::string(200, 'a') + "..."},
      {"no cut inside a character", "ab\xc3\xbc", 3, "ab..."},
      {"empty", "", 200, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.label) { BOOST_TEST(svc::core::printable(c.in, c.max) == c.out); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
