// The control-character, UTF-8, JSON and blank helpers of core/text: what
// each keeps, drops or rewrites, byte for byte.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "core/text.hpp"

namespace core = svc::core;
using namespace std::string_literals;

BOOST_AUTO_TEST_SUITE(text_scrub_test)

struct ControlCase {
  std::string in;
  std::string stripped;  // strip_controls
  std::string masked;    // mask_controls
};

BOOST_AUTO_TEST_CASE(controls_table) {
  const std::vector<ControlCase> cases = {
      {"", "", ""},
      {"plain text", "plain text", "plain text"},
      {"a\r\nb", "ab", "a??b"},
      {"tab\there", "tabhere", "tab?here"},
      {"nul\0end"s, "nulend", "nul?end"},
      {"del\x7f", "del", "del?"},
      {"\x1f\x20\x7e", " ~", "? ~"},
      {"ünïcode \xff", "ünïcode \xff", "ünïcode \xff"},  // bytes >= 0x80 are kept
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("input " << c.in) {
      BOOST_TEST(core::strip_controls(c.in) == c.stripped);
      BOOST_TEST(core::mask_controls(c.in) == c.masked);
      BOOST_TEST(core::has_controls(c.in) == (c.stripped != c.in));
    }
  }
}

BOOST_AUTO_TEST_CASE(json_escape_table) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"+4915112345678", "+4915112345678"},
      {"say \"hi\"", "say \\\"hi\\\""},
      {"back\\slash", "back\\\\slash"},
      {"a\nb\rc\td", "a\\nb\\rc\\td"},
      {"\x01\x1f", "\\u0001\\u001f"},
      {"nul\0"s, "nul\\u0000"},
      {"del\x7f", "del\x7f"},  // valid in a JSON string as it is
      {"Grüße 👋", "Grüße 👋"},  // UTF-8 passes through
  };
  for (const auto& [in, out] : cases) BOOST_TEST(core::json_escape(in) == out, "input " << in);
}

BOOST_AUTO_TEST_CASE(is_valid_utf8_table) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {"", true},
      {"ascii", true},
      {"nul\0inside"s, true},
      {"é€😀", true},
      {"\xc3", false},              // cut short
      {"\xc0\xaf", false},          // overlong '/'
      {"\xe0\x80\xaf", false},      // overlong, three bytes
      {"\xed\xa0\x80", false},      // surrogate U+D800
      {"\xf4\x90\x80\x80", false},  // above U+10FFFF
      {"\x80", false},              // a lone continuation byte
      {"ok\xff", false},
  };
  for (const auto& [in, valid] : cases) {
    BOOST_TEST(core::is_valid_utf8(in) == valid, "input " << in);
    BOOST_TEST((core::utf8_clean(in) == in) == valid, "input " << in);
  }
}

BOOST_AUTO_TEST_CASE(blanks_and_case) {
  BOOST_TEST(core::trim_blanks(" \t\r\n\f x y \f\n") == "x y");
  BOOST_TEST(core::trim_blanks("   ") == "");
  BOOST_TEST(core::trim_blanks("\vx") == "\vx");  // vertical tab is not a blank
  BOOST_TEST(core::is_blank('\f'));
  BOOST_TEST(!core::is_blank('\v'));
  BOOST_TEST(core::ascii_lower('Q') == 'q');
  BOOST_TEST(core::ascii_lower('@') == '@');
  BOOST_TEST(core::ascii_lower('\xc4') == '\xc4');
  BOOST_TEST(core::ascii_lower("MiXeD Ä") == "mixed Ä");
}

BOOST_AUTO_TEST_SUITE_END()
