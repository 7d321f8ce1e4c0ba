#include "messaging/template.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "http/validate.hpp"
#include "messaging/address.hpp"
#include "messaging/html_text.hpp"

using svc::messaging::MergeValues;
namespace m = svc::messaging;

BOOST_AUTO_TEST_SUITE(template_test)

struct MergeCase {
  const char* tmpl;
  MergeValues values;
  const char* html;   // merge_html
  const char* plain;  // merge_plain_line
};

BOOST_AUTO_TEST_CASE(merge_table) {
  const std::vector<MergeCase> cases = {
      {"Hello [name]!", {{"name", "Ann"}}, "Hello Ann!", "Hello Ann!"},
      {"[a][b]", {{"a", "1"}, {"b", "2"}}, "12", "12"},
      {"<b>[x]</b>", {{"x", "<i>&\"'</i>"}}, "<b>&lt;i&gt;&amp;&quot;&#39;&lt;/i&gt;</b>", "<b><i>&\"'</i></b>"},
      // Missing values keep the placeholder exactly as written.
      {"Dear [first_name] [last.name-2]", {}, "Dear [first_name] [last.name-2]", "Dear [first_name] [last.name-2]"},
      // Single pass: a value that looks like a placeholder is not expanded.
      {"[a] [b]", {{"a", "[b]"}, {"b", "B"}}, "[b] B", "[b] B"},
      {"[a]", {{"a", "[a]"}}, "[a]", "[a]"},
      // Not placeholders: empty, bad characters, unterminated; "[[x]" still finds "[x]".
      {"[] [a b] [x", {{"x", "X"}}, "[] [a b] [x", "[] [a b] [x"},
      {"[[x]]", {{"x", "X"}}, "[X]", "[X]"},
      {"order [order.id] total [total_EUR]",
       {{"order.id", "42"}, {"total_EUR", "9.50"}},
       "order 42 total 9.50",
       "order 42 total 9.50"},
      {"Grüße [n] ✓", {{"n", "Jörg"}}, "Grüße Jörg ✓", "Grüße Jörg ✓"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("template " << c.tmpl) {
      BOOST_TEST(m::merge_html(c.tmpl, c.values) == c.html);
      BOOST_TEST(m::merge_plain_line(c.tmpl, c.values) == c.plain);
    }
  }
}

BOOST_AUTO_TEST_CASE(subject_header_injection_is_removed) {
  const MergeValues values = {{"x", "x\r\nBcc: evil@x"},
                              {"y",
                               "a\nb\rc\td\x01"
                               "e\x7f"}};
  const std::string subject = m::merge_plain_line("Order [x] / [y]", values);
  BOOST_TEST(subject == "Order xBcc: evil@x / abcde");
  BOOST_TEST(subject.find_first_of("\r\n") == std::string::npos);
  // Controls in the template itself are removed too.
  BOOST_TEST(m::merge_plain_line("Hi\r\n[x]", {{"x", "1"}}) == "Hi1");
  // The HTML merge keeps newlines (they are harmless in a body).
  BOOST_TEST(m::merge_html("[y]", {{"y", "a\nb"}}) == "a\nb");
}

BOOST_AUTO_TEST_CASE(strip_crlf_removes_controls) {
  BOOST_TEST(svc::core::strip_controls("a@b.com\r\nRCPT TO:<x@y.z>") == "a@b.comRCPT TO:<x@y.z>");
  BOOST_TEST(svc::core::strip_controls(std::string("a\0b\tc", 5)) == "abc");
  BOOST_TEST(svc::core::strip_controls("plain ünïcode") == "plain ünïcode");
}

BOOST_AUTO_TEST_CASE(email_validation_table) {
  const std::string local64(64, 'a');
  const std::string label63(63, 'b');
  const std::vector<std::pair<std::string, bool>> cases = {
      {"user@example.com", true},
      {"first.last+tag@sub.example.co.uk", true},
      {"o'brien@example.ie", true},
      {"x_y-z@ex-ample.org", true},
      {"USER@EXAMPLE.COM", true},
      {"a@b.io", true},
      {local64 + "@example.com", true},
      {local64 + "a@example.com", false},
      {"u@" + label63 + ".com", true},
      {"u@" + label63 + "b.com", false},
      {"", false},
      {"plainaddress", false},
      {"@example.com", false},
      {"user@", false},
      {"user@localhost", false},
      {"user@example", false},
      {"user@@example.com", false},
      {"us@er@example.com", false},
      {"user @example.com", false},
      {"user@exa mple.com", false},
      {"user@example.com\r\nBcc: x@y.z", false},
      {"user\n@example.com", false},
      {"<user@example.com>", false},
      {"user@example.com,other@example.com", false},
      {"user@example.com;x@y.z", false},
      {"\"quoted\"@example.com", false},
      {".user@example.com", false},
      {"user.@example.com", false},
      {"us..er@example.com", false},
      {"user@-example.com", false},
      {"user@example-.com", false},
      {"user@example..com", false},
      {"user@.example.com", false},
      {"user@example.com.", false},
      {"user@1.2.3.4", false},
      {"user@[1.2.3.4]", false},
      {"jörg@example.com", false},
      {"user@exämple.com", false},
      {local64 + "@" + label63 + "." + std::string(63, 'c') + "." + std::string(57, 'd') + ".com",
       true},  // 254 characters
      {local64 + "@" + label63 + "." + std::string(63, 'c') + "." + std::string(58, 'd') + ".com",
       false},  // 255 characters
  };
  for (const auto& [address, valid] : cases) {
    BOOST_TEST_CONTEXT("address '" << address << "'") { BOOST_TEST(svc::http::is_valid_email(address) == valid); }
  }
}

BOOST_AUTO_TEST_CASE(split_addresses_table) {
  using V = std::vector<std::string>;
  BOOST_TEST(m::split_addresses("a@x.com, b@y.com;c@z.com") == (V{"a@x.com", "b@y.com", "c@z.com"}));
  BOOST_TEST(m::split_addresses("  a@x.com \t;; ,\r\n b@y.com ,") == (V{"a@x.com", "b@y.com"}));
  BOOST_TEST(m::split_addresses("").empty());
  BOOST_TEST(m::split_addresses(" , ; ").empty());
  BOOST_TEST(m::split_addresses("only@one.com") == (V{"only@one.com"}));
}

BOOST_AUTO_TEST_CASE(html_to_text_table) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<p>Hello <b>Ann</b>,</p><p>your order</p>", "Hello Ann,\n\nyour order"},
      {"line one<br>line two<BR/>three", "line one\nline two\nthree"},
      {"  lots   of\n\n  space\t here ", "lots of space here"},
      {"a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &apos;f&apos;", "a & b <c> \"d\" 'e' 'f'"},
      {"&#252;&#x2713; &unknown; & alone", "ü✓ &unknown; & alone"},
      {"<html><head><title>T</title><style>p{color:red}</style></head>"
       "<body><script>var x = '<p>';</script><div>Body</div></body></html>",
       "Body"},
      {"<!-- hidden <p>x</p> -->shown", "shown"},
      {"<ul><li>one</li><li>two</li></ul>", "one\ntwo"},
      {"<p>a</p>\n\n<p></p><p></p><p>b</p>", "a\n\nb"},
      // A link's target on a line of its own (issue 36): "Text (URL)" lets
      // linkifiers take the ")" into the URL.
      {"<a href=\"https://x.example/r?a=1&amp;b=2\">Reset</a>", "Reset\nhttps://x.example/r?a=1&b=2"},
      {"<p>Please <a href=\"https://x.example/r\">choose one</a> (valid 30 minutes).</p>",
       "Please choose one\nhttps://x.example/r\n(valid 30 minutes)."},
      {"Visit <a href=\"https://x.example/\">https://x.example/</a>, then", "Visit\nhttps://x.example/\n, then"},
      {"<a href=\"https://x.example/\">one</a> <a href=\"https://x.example/\">two</a>", "one\nhttps://x.example/\ntwo"},
      {"", ""},
  };
  for (const auto& [html, text] : cases) {
    BOOST_TEST_CONTEXT("html " << html) { BOOST_TEST(m::html_to_text(html) == text); }
  }
}

BOOST_AUTO_TEST_CASE(placeholders_are_the_fields_merge_fills) {
  BOOST_TEST(m::placeholders("Hi [name], [order] [[name]] [no space] [] [a.b-c_d] [name") ==
                 (std::vector<std::string>{"name", "order", "a.b-c_d"}),
             boost::test_tools::per_element());
  BOOST_TEST(m::placeholders("no fields").empty());
}

BOOST_AUTO_TEST_SUITE_END()
