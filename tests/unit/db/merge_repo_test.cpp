// The pure parts of db/merge_repo: the one shape check that svc-admin (before
// storing a merge query) and run_merge_select (before running one) share,
// and the `:name` parameter binder (placeholders become `?` outside quotes,
// the names come back in binding order). Running a query needs MariaDB: the
// handler and integration tests cover it.
#include "db/merge_repo.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(merge_repo_test)

struct ShapeCase {
  const char* text;
  bool accepted;
};

BOOST_AUTO_TEST_CASE(select_shape_table) {
  const std::vector<ShapeCase> cases = {
      {"SELECT 1", true},
      {"select customer FROM demo_orders", true},
      {"  \t\r\n SeLeCt 1", true},
      {"\f\vSELECT 1", true},
      {"SELECT*FROM demo_orders", true},
      {"SELECT\n1", true},
      {"WITH o AS (SELECT 1 AS n) SELECT n FROM o", true},
      {"with recursive r AS (SELECT 1) SELECT * FROM r", true},
      // Only the first word is looked at; the database refuses the rest.
      {"WITH t AS (SELECT 1) DELETE FROM demo_orders", true},
      {"", false},
      {"   \n\t", false},
      {"SELEC 1", false},
      {"SELECTED 1", false},
      {"WITHOUT 1", false},
      {"(SELECT 1)", false},
      {"/* c */ SELECT 1", false},
      {"-- c\nSELECT 1", false},
      {"UPDATE demo_orders SET total = 0", false},
      {"DELETE FROM demo_orders", false},
      {"INSERT INTO t VALUES (1)", false},
      {"CALL x()", false},
      {"SET @a = 1", false},
      {"SHOW TABLES", false},
      {"1 SELECT", false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("text: '" << c.text << "'") { BOOST_CHECK_EQUAL(svc::db::is_select_shaped(c.text), c.accepted); }
  }
}

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
