// The pure part of the merge query runner: `:name` placeholders become `?`
// outside quotes, and the names come back in binding order. (Running the
// query needs MariaDB: the handler and integration tests cover it.)
#include "db/merge_repo.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(merge_repo_test)

BOOST_AUTO_TEST_CASE(named_parameters_become_positional) {
  struct Row {
    std::string sql;
    std::string bound;
    std::vector<std::string> names;
  };
  const std::vector<Row> rows = {
      {"", "", {}},
      {"SELECT 1", "SELECT 1", {}},
      {"SELECT :a", "SELECT ?", {"a"}},
      {"SELECT name FROM t WHERE id = :id AND site = :site_id",
       "SELECT name FROM t WHERE id = ? AND site = ?",
       {"id", "site_id"}},
      {"SELECT :a, :a", "SELECT ?, ?", {"a", "a"}},  // a repeated name is bound twice
      {"SELECT :_x1,:B2", "SELECT ?,?", {"_x1", "B2"}},
      {"SELECT :a-:b", "SELECT ?-?", {"a", "b"}},
      {"SELECT x:y", "SELECT x?", {"y"}},
      {"SELECT :1", "SELECT :1", {}},  // a name starts with a letter or '_'
      {"SELECT :", "SELECT :", {}},
      {"SELECT a::int", "SELECT a::int", {}},  // '::' is no placeholder
      {"SELECT ':a'", "SELECT ':a'", {}},
      {"SELECT \":a\"", "SELECT \":a\"", {}},
      {"SELECT `:a`", "SELECT `:a`", {}},
      {"SELECT 'it\\'s :a', :b", "SELECT 'it\\'s :a', ?", {"b"}},
      {"SELECT 'a''b', :c", "SELECT 'a''b', ?", {"c"}},
      {"SELECT \"'\", :d", "SELECT \"'\", ?", {"d"}},  // the other quote does not close it
      {"SELECT ':a", "SELECT ':a", {}},                // unterminated: the rest is quoted
      {"SELECT ':a\\", "SELECT ':a\\", {}},
      {"SELECT :\xC3\xA9", "SELECT :\xC3\xA9", {}},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.sql) {
      std::vector<std::string> names;
      BOOST_TEST(svc::db::bind_named_parameters(row.sql, names) == row.bound);
      BOOST_TEST(names == row.names, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
