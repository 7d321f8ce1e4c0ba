// core/text: UTF-8 cleaning, decimal ids, control stripping, ASCII lower
// case and the host of an http(s) URL. One table per function.
#include "core/text.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using svc::core::ascii_lower;
using svc::core::parse_id;
using svc::core::strip_controls;
using svc::core::url_host;
using svc::core::utf8_clean;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
const std::size_t kAll = std::string::npos;

// Control and non-ASCII bytes as \xNN, so a failing row names its input.
std::string shown(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

struct CleanRow {
  std::string input;
  std::size_t max_bytes;
  std::string expected;
};

const std::vector<CleanRow> kClean = {
    {"", kAll, ""},
    {"plain ascii", kAll, "plain ascii"},
    {std::string("a\0b", 3), kAll, std::string("a\0b", 3)},
    {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", kAll, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
    {"\xFF", kAll, kFffd},
    {"a\xC3", kAll, "a" + kFffd},                               // truncated 2-byte sequence
    {"\xC3(", kAll, kFffd + "("},                               // lead byte without continuation
    {"\x80", kAll, kFffd},                                      // stray continuation byte
    {"\xC0\xAF", kAll, kFffd + kFffd},                          // overlong '/'
    {"\xE0\x80\xAF", kAll, kFffd + kFffd + kFffd},              // overlong, 3 bytes
    {"\xF0\x80\x80\xAF", kAll, kFffd + kFffd + kFffd + kFffd},  // overlong, 4 bytes
    {"\xED\xA0\x80", kAll, kFffd + kFffd + kFffd},              // surrogate U+D800
    {"\xF4\x90\x80\x80", kAll, kFffd + kFffd + kFffd + kFffd},  // above U+10FFFF
    {"\xF4\x8F\xBF\xBF", kAll, "\xF4\x8F\xBF\xBF"},             // U+10FFFF itself
    {"\xEF\xBF\xBD", kAll, kFffd},                              // U+FFFD stays
    {"abc", 2, "ab"},
    {"abc", 0, ""},
    {"a\xC3\xA9", 2, "a"},  // never splits a character
    {"a\xC3\xA9", 3, "a\xC3\xA9"},
    {"ab\xE2\x82\xAC", 4, "ab"},
    {"\xFF", 2, ""},  // the replacement does not fit either
    {"\xFFz", 3, kFffd},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(text_test)

BOOST_AUTO_TEST_CASE(utf8_clean_replaces_invalid_sequences_and_cuts_whole_characters) {
  for (const CleanRow& row : kClean) {
    BOOST_TEST_CONTEXT(shown(row.input) << " max " << row.max_bytes) {
      BOOST_TEST(shown(utf8_clean(row.input, row.max_bytes)) == shown(row.expected));
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_id_takes_only_plain_decimal_digits) {
  struct Row {
    std::string input;
    std::optional<long long> expected;
  };
  const std::vector<Row> rows = {
      {"0", 0},
      {"42", 42},
      {"007", 7},
      {"123456789012345678", 123456789012345678LL},  // 18 digits: the longest accepted
      {"1234567890123456789", std::nullopt},         // 19 digits
      {"", std::nullopt},
      {"-1", std::nullopt},
      {"+1", std::nullopt},
      {" 1", std::nullopt},
      {"1 ", std::nullopt},
      {"1a", std::nullopt},
      {"0x10", std::nullopt},
      {"1.0", std::nullopt},
      {"1e3", std::nullopt},
      {std::string("1\0", 2), std::nullopt},
      {"\xEF\xBC\x91", std::nullopt},  // FULLWIDTH DIGIT ONE
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(shown(row.input)) {
      const std::optional<long long> got = parse_id(row.input);
      BOOST_TEST(got.has_value() == row.expected.has_value());
      if (got && row.expected) BOOST_TEST(*got == *row.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(strip_controls_removes_c0_and_del_only) {
  struct Row {
    std::string input;
    std::string expected;
  };
  const std::vector<Row> rows = {
      {"", ""},
      {"plain text", "plain text"},
      {"a\r\nBcc: x", "aBcc: x"},
      {"tab\there", "tabhere"},
      {std::string("a\0b", 3), "ab"},
      {"\x01\x1f", ""},
      {"x\x7fy", "xy"},
      {" ~", " ~"},                      // 0x20 and 0x7e are kept
      {"caf\xC3\xA9", "caf\xC3\xA9"},    // UTF-8 is kept
      {"\x80\x85\xFF", "\x80\x85\xFF"},  // bytes >= 0x80 are kept, even C1 as bytes
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(shown(row.input)) { BOOST_TEST(shown(strip_controls(row.input)) == shown(row.expected)); }
  }
}

// Issue 36: what a person's name must not hold.
BOOST_AUTO_TEST_CASE(has_name_controls_finds_c0_del_c1_and_unicode_line_breaks) {
  using namespace std::string_literals;
  for (const std::string& bad : {"A\0B"s, "x\nBcc: y"s, "x\ry"s, "x\ty"s, "x\x7fy"s, "x\xc2\x85y"s, "\xc2\x80"s,
                                 "x\xc2\x9f"s, "x\xe2\x80\xa8y"s, "x\xe2\x80\xa9"s}) {
    BOOST_TEST_CONTEXT(svc::core::json_escape(bad)) { BOOST_TEST(svc::core::has_name_controls(bad)); }
  }
  for (const std::string& good :
       {""s, "Ada"s,
        "Jos\xc3\xa9 \xc3\x91"
        "and\xc3\xba"s,
        "\xc2\xa0"s, "\xe2\x80\xa7"s, "\xe2\x80\xaa"s, "O'Brien-\xc5\x81ukasz"s, "\xe2\x80"s, "\xc2"s}) {
    BOOST_TEST_CONTEXT(svc::core::json_escape(good)) { BOOST_TEST(!svc::core::has_name_controls(good)); }
  }
}

BOOST_AUTO_TEST_CASE(ascii_lower_touches_only_a_to_z) {
  struct Row {
    std::string input;
    std::string expected;
  };
  const std::vector<Row> rows = {
      {"", ""},
      {"MiXeD Case 42", "mixed case 42"},
      {"@[`{", "@[`{"},  // the neighbours of A-Z and a-z
      {"AZaz", "azaz"},
      {"\xC3\x89T\xC3\x89", "\xC3\x89t\xC3\x89"},  // "ÉTÉ": É stays
      {std::string("A\0B", 3), std::string("a\0b", 3)},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(shown(row.input)) { BOOST_TEST(shown(ascii_lower(row.input)) == shown(row.expected)); }
  }
}

BOOST_AUTO_TEST_CASE(url_host_of_http_and_https_urls_only) {
  struct Row {
    std::string url;
    std::string expected;
  };
  const std::vector<Row> rows = {
      {"https://example.com/path", "example.com"},
      {"https://Example.COM/Path", "example.com"},
      {"HTTP://a.example", "a.example"},
      {"http://a.example:8080/x", "a.example"},
      {"https://a.example:/x", "a.example"},
      {"https://a.example?q=1", "a.example"},
      {"https://a.example#frag", "a.example"},
      {"https://[::1]:8443/x", "[::1]"},
      {"https://[::1]", "[::1]"},
      {"https://[::1/x", ""},  // unclosed IPv6 literal
      {"https://user@a.example/", ""},
      {"https://user:pw@a.example/", ""},
      {"https://a.example/@b.example", "a.example"},  // '@' in the path is no userinfo
      {"https:///path", ""},
      {"https://", ""},
      {"https:/a.example", ""},
      {"//a.example/", ""},
      {"ftp://a.example/", ""},
      {"javascript:alert(1)", ""},
      {" https://a.example", ""},
      {"", ""},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.url) { BOOST_TEST(url_host(row.url) == row.expected); }
  }
}

BOOST_AUTO_TEST_CASE(split_words_skips_empty_words) {
  struct Row {
    std::string_view list;
    std::vector<std::string_view> words;
  };
  const Row rows[] = {
      {"", {}}, {"pwd", {"pwd"}}, {"usb nfc ble", {"usb", "nfc", "ble"}}, {"  hwk   otp ", {"hwk", "otp"}}, {" ", {}},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.list) { BOOST_TEST(svc::core::split_words(row.list) == row.words); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
