// What the Templates service refuses in a subject or a content before
// anything is saved (manage/templates.hpp): the rules both svc-admin and
// /admin/sites/{site}/templates apply.
#include <boost/test/unit_test.hpp>

#include "manage/templates.hpp"

namespace m = svc::manage;

BOOST_AUTO_TEST_SUITE(manage_templates_test)

BOOST_AUTO_TEST_CASE(content_with_active_parts_is_refused) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"<p>x</p><script>alert(1)</script>", "holds a <script> element"},
      {"<SCRIPT src=//x.example/a.js></SCRIPT>", "holds a <script> element"},
      {"<iframe src=\"https://x.example\"></iframe>", "holds a <iframe> element"},
      {"<img src=x onerror=alert(1)>", "holds an event handler attribute (onerror)"},
      {"<body\nONLOAD = 'go()'>", "holds an event handler attribute (onload)"},
      {"<svg/onload=alert(1)>", "holds an event handler attribute (onload)"},
      {"<a href=\"javascript:alert(1)\">x</a>", "holds a javascript: address"},
      {"<a href=\" JaVa\tScRiPt:alert(1)\">x</a>", "holds a javascript: address"},
      {"<a href=\"jav&#x61;script&colon;alert(1)\">x</a>", "holds a javascript: address"},
      {"<a href=\"&#106;&#97;vascript:x\">x</a>", "holds a javascript: address"},
      {"<a href=\"&#0000000106;avascript:x\">x</a>", "holds a javascript: address"},
      {"<a href=\"vbscript:msgbox\">x</a>", "holds a vbscript: address"},
      {"<a href=\"data:text/html,<b>x</b>\">x</a>", "holds a data:text/html address"},
  };
  for (const auto& [content, problem] : refused) {
    BOOST_TEST_CONTEXT("content " << content) {
      auto found = m::content_problem(content);
      BOOST_REQUIRE(found.has_value());
      BOOST_TEST(found->rfind(problem, 0) == 0, *found);
    }
  }
}

BOOST_AUTO_TEST_CASE(ordinary_mail_html_is_taken) {
  for (const std::string content :
       {"<p>Dear [name],</p><a href=\"https://x.example/r?a=1&amp;b=2\">Reset</a>",
        "<table style=\"width:100%\"><tr><td class=\"one\">[order]</td></tr></table>",
        "<p>Reach us online: click here</p><img src=\"https://x.example/logo.png\" alt=\"logo\">",
        "<!-- <script>not code</script> --><p>comment</p>", "<p>a < b and c > d</p>", "plain text"}) {
    BOOST_TEST_CONTEXT("content " << content) { BOOST_TEST(!m::content_problem(content).has_value()); }
  }
}

BOOST_AUTO_TEST_CASE(empty_or_malformed_text_is_refused) {
  BOOST_TEST(*m::content_problem(" \n\t") == "is empty");
  BOOST_TEST(*m::content_problem("<p>\xff</p>") == "is not UTF-8");
  BOOST_TEST(*m::content_problem(std::string("a\0b", 3)) == "holds a NUL character");
  BOOST_TEST(*m::subject_problem("") == "is empty");
  BOOST_TEST(*m::subject_problem("two\nlines") == "must hold a single line");
  BOOST_TEST(*m::subject_problem(std::string(999, 'x')) == "is longer than 998 bytes");
  BOOST_TEST(!m::subject_problem("Hello [name]").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
