// The INI reader: what each line shape yields, and the exact error (file and
// line) for each malformed one.
#include "config/ini.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using svc::config::ConfigError;
using svc::config::IniValues;
using svc::config::parse_ini;

BOOST_AUTO_TEST_SUITE(ini_test)

BOOST_AUTO_TEST_CASE(lines_give_section_dot_key_values) {
  struct Row {
    std::string name;
    std::string text;
    IniValues expected;
  };
  const std::vector<Row> rows = {
      {"empty file", "", {}},
      {"comments and blank lines", "# hash\n; semicolon\n\n   \n\t# indented\n", {}},
      {"one key", "[s]\nk = v\n", {{"s.k", "v"}}},
      {"no final newline", "[s]\nk=v", {{"s.k", "v"}}},
      {"blanks around everything", "  [ s ]  \n  k  =  v  w \t\r\n", {{"s.k", "v  w"}}},
      {"CRLF line ends", "[s]\r\nk = v\r\n", {{"s.k", "v"}}},
      {"empty value", "[s]\nk =\n", {{"s.k", ""}}},
      {"quotes keep blanks", "[s]\nk = \"  padded  \"\n", {{"s.k", "  padded  "}}},
      {"empty quotes", "[s]\nk = \"\"\n", {{"s.k", ""}}},
      {"a lone quote stays", "[s]\nk = \"\n", {{"s.k", "\""}}},
      {"inner quotes stay", "[s]\nk = a \"b\" c\n", {{"s.k", "a \"b\" c"}}},
      {"only the first = splits", "[s]\nk = a = b\n", {{"s.k", "a = b"}}},
      {"# after a value is part of it", "[s]\nk = v # not a comment\n", {{"s.k", "v # not a comment"}}},
      {"dotted section", "[database.merge]\nuser = m\n", {{"database.merge.user", "m"}}},
      {"same key in two sections", "[a]\nk = 1\n[b]\nk = 2\n", {{"a.k", "1"}, {"b.k", "2"}}},
      {"section may come back", "[a]\nx = 1\n[b]\ny = 2\n[a]\nz = 3\n", {{"a.x", "1"}, {"b.y", "2"}, {"a.z", "3"}}},
      {"keys are case-sensitive", "[s]\nK = 1\nk = 2\n", {{"s.K", "1"}, {"s.k", "2"}}},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      const IniValues got = parse_ini(row.text, "t.conf");
      BOOST_TEST(got.size() == row.expected.size());
      for (const auto& [key, value] : row.expected) {
        BOOST_TEST_CONTEXT(key) {
          BOOST_TEST(got.count(key) == 1u);
          if (got.count(key)) BOOST_TEST(got.at(key) == value);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(malformed_lines_name_file_and_line) {
  struct Row {
    std::string text;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"k = v\n", "t.conf:1: key outside of a [section]"},
      {"# comment\n\nk = v\n", "t.conf:3: key outside of a [section]"},
      {"[s\n", "t.conf:1: section header without ']'"},
      {"[s] # comment\n", "t.conf:1: section header without ']'"},
      {"[ ]\n", "t.conf:1: empty section name"},
      {"[]\n", "t.conf:1: empty section name"},
      {"[s]\njunk\n", "t.conf:2: expected 'key = value'"},
      {"junk\n", "t.conf:1: expected 'key = value'"},
      {"[s]\n = v\n", "t.conf:2: empty key"},
      {"[s]\nk = 1\nk = 2\n", "t.conf:3: [s] k is set twice"},
      {"[s]\nk = 1\n[t]\n[s]\nk = 1\n", "t.conf:5: [s] k is set twice"},
      {"[s]\r\nk = 1\r\n k=2\r\n", "t.conf:3: [s] k is set twice"},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.text) {
      try {
        parse_ini(row.text, "t.conf");
        BOOST_TEST(false, "no error");
      } catch (const ConfigError& e) {
        BOOST_TEST(std::string(e.what()) == row.error);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(unreadable_file_is_named) {
  try {
    svc::config::load_ini_file("/nonexistent/svc.conf");
    BOOST_TEST(false, "no error");
  } catch (const ConfigError& e) {
    BOOST_TEST(std::string(e.what()) ==
               "cannot read configuration file /nonexistent/svc.conf (name another with --config FILE or "
               "the SVC_CONFIG environment variable)");
  }
}

BOOST_AUTO_TEST_SUITE_END()
