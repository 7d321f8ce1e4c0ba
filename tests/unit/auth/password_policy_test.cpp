// The sign-up / reset strength rule, one row per password with each
// requirement's expected verdict, and the spec's exact 400 when it fails.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "auth/password/policy.hpp"
#include "http/api_error.hpp"

using svc::auth::check_strength;
using svc::auth::PasswordRequirements;

BOOST_AUTO_TEST_SUITE(password_policy_test)

BOOST_AUTO_TEST_CASE(each_requirement_is_judged_on_its_own) {
  struct Row {
    std::string password;
    bool min_length, upper, lower, number, special;
  };
  const std::vector<Row> rows = {
      {"Passw0rd!", true, true, true, true, true},
      {"Aa1!aaaa", true, true, true, true, true},  // exactly 8
      {"Aa1!aaa", false, true, true, true, true},  // 7
      {"", false, false, false, false, false},
      {"aaaaaaaa", true, false, true, false, false},
      {"AAAAAAAA", true, true, false, false, false},
      {"12345678", true, false, false, true, false},
      {"@$!%*?&@", true, false, false, false, true},  // every allowed special
      {"Aa1#aaaa", true, true, true, true, false},    // '#' is not one of them
      {"Aa1 aaaa", true, true, true, true, false},    // nor is a space
      {"Aa1-_.,;", true, true, true, true, false},
      // Length counts UTF-8 characters; letters outside A-Z/a-z count for neither case.
      {"\xC3\x84\xC3\x96\xC3\x9C\xC3\xA4\xC3\xB6\xC3\xBC"
       "1!",
       true, false, false, true, true},
      {"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", false, false, false, false,
       false},  // 7 chars, 14 bytes
      {"Aa1!\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80", true, true, true, true, true},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.password) {
      const PasswordRequirements r = check_strength(row.password);
      BOOST_TEST(r.min_length == row.min_length);
      BOOST_TEST(r.has_upper == row.upper);
      BOOST_TEST(r.has_lower == row.lower);
      BOOST_TEST(r.has_number == row.number);
      BOOST_TEST(r.has_special == row.special);
      BOOST_TEST(r.all() == (row.min_length && row.upper && row.lower && row.number && row.special));
    }
  }
}

// docs/decisions.md, "Password characters": every character is accepted in a
// password (NIST SP 800-63B), but only the spec's @$!%*?& counts for
// hasSpecialChar, so a password needs one of those whatever else it holds.
BOOST_AUTO_TEST_CASE(only_the_spec_set_counts_as_special_but_every_character_is_accepted) {
  struct Row {
    std::string password;
    bool accepted;
  };
  std::string printable;  // every printable ASCII character, space included
  for (char c = ' '; c <= '~'; ++c) printable += c;
  const std::vector<Row> rows = {
      {printable, true},
      {"Analytical#1", false},  // '#' is printable ASCII but not in the set
      {"Analytical@1", true},
      {"Analytical#@1", true},  // other specials beside one from the set
      {"Analyt ical~^#1", false},
      {R"(Anal yt\ical"'<>{}|`~^#()[]+=_-.,;:/&1)", true},           // other characters beside one from the set
      {"Gr\xC3\xBC\xC3\x9F Gott\xE2\x82\xAC 1!", true},              // spaces and Unicode too
      {"Gr\xC3\xBC\xC3\x9F Gott\xE2\x82\xAC 1\xEF\xBC\x81", false},  // a full-width '!' (U+FF01) is not '!'
      {"Aa1a\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80", false},  // emoji are not special
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.password) {
      const PasswordRequirements r = check_strength(row.password);
      BOOST_TEST(r.min_length);
      BOOST_TEST(r.has_upper);
      BOOST_TEST(r.has_lower);
      BOOST_TEST(r.has_number);
      BOOST_TEST(r.has_special == row.accepted);
      if (row.accepted) {
        BOOST_CHECK_NO_THROW(svc::auth::require_strong_password(row.password));
      } else {
        try {
          svc::auth::require_strong_password(row.password);
          BOOST_FAIL("no error");
        } catch (const svc::http::ApiError& e) {
          BOOST_TEST(e.status() == 400);
          BOOST_TEST(e.body() ==
                     R"({"status":"Failed","message":"Password does not meet security requirements","requirements":)"
                     R"({"minLength":true,"hasUpperCase":true,"hasLowerCase":true,"hasNumber":true,)"
                     R"("hasSpecialChar":false}})");
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(utf8_length_counts_code_points) {
  struct Row {
    std::string text;
    size_t length;
  };
  const std::vector<Row> rows = {
      {"", 0},           {"abc", 3},      {"\xC3\xA9", 1}, {"\xE2\x82\xAC", 1}, {"\xF0\x9F\x98\x80", 1},
      {"a\xC3\xA9z", 3}, {"\x80\x80", 0},  // continuation bytes alone start no character
      {"\xFF", 1},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.text) { BOOST_TEST(svc::auth::utf8_length(row.text) == row.length); }
  }
}

BOOST_AUTO_TEST_CASE(weak_password_gets_the_spec_reply) {
  BOOST_CHECK_NO_THROW(svc::auth::require_strong_password("Passw0rd!"));
  try {
    svc::auth::require_strong_password("weak");
    BOOST_FAIL("no error");
  } catch (const svc::http::ApiError& e) {
    BOOST_TEST(e.status() == 400);
    BOOST_TEST(e.body() ==
               R"({"status":"Failed","message":"Password does not meet security requirements","requirements":)"
               R"({"minLength":false,"hasUpperCase":false,"hasLowerCase":true,"hasNumber":false,)"
               R"("hasSpecialChar":false}})");
  }
}

BOOST_AUTO_TEST_SUITE_END()
