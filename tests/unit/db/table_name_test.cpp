// Table names from requests: only an exact member of the configured
// allowlist that is itself a plain identifier becomes a TableName.
#include "db/table_name.hpp"

#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <vector>

using svc::db::allowlisted;
using svc::db::is_plain_identifier;

BOOST_AUTO_TEST_SUITE(table_name_test)

BOOST_AUTO_TEST_CASE(only_exact_plain_allowlist_entries_pass) {
  struct Row {
    std::string requested;
    std::vector<std::string> allowlist;
    std::optional<std::string> expected;
  };
  const std::vector<Row> rows = {
      {"svc_users", {"svc_users"}, "svc_users"},
      {"svc_staff", {"svc_users", "svc_staff"}, "svc_staff"},
      {"svc_users", {}, std::nullopt},
      {"svc_other", {"svc_users", "svc_staff"}, std::nullopt},
      {"SVC_USERS", {"svc_users"}, std::nullopt},  // case-sensitive
      {"svc_users ", {"svc_users"}, std::nullopt},
      {"svc_user", {"svc_users"}, std::nullopt},
      {std::string("svc_users\0", 10), {"svc_users"}, std::nullopt},
      {"", {""}, std::nullopt},                  // an empty entry is never plain
      {"bad-name", {"bad-name"}, std::nullopt},  // nor one with other characters
      {"t`; DROP TABLE x", {"t`; DROP TABLE x"}, std::nullopt},
      {"db.t", {"db.t"}, std::nullopt},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.requested) {
      const auto got = allowlisted(row.requested, row.allowlist);
      BOOST_TEST(got.has_value() == row.expected.has_value());
      if (got && row.expected) {
        BOOST_TEST(got->str() == *row.expected);
        BOOST_TEST(got->quoted() == "`" + *row.expected + "`");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(plain_identifier_is_1_to_64_of_alnum_and_underscore) {
  struct Row {
    std::string name;
    bool plain;
  };
  const std::vector<Row> rows = {
      {"a", true},
      {"_", true},
      {"123", true},
      {"Svc_Users_2", true},
      {std::string(64, 'x'), true},
      {std::string(65, 'x'), false},
      {"", false},
      {"a-b", false},
      {"a b", false},
      {"a.b", false},
      {"a`", false},
      {"a'", false},
      {"a;", false},
      {"caf\xC3\xA9", false},
      {std::string("a\0", 2), false},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) { BOOST_TEST(is_plain_identifier(row.name) == row.plain); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
