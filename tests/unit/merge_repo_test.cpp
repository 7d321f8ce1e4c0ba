// The pure parts of db/merge_repo: the one shape check that svc-admin (before
// storing a merge query) and run_merge_select (before running one) share,
// and the `:name` parameter binder.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "db/merge_repo.hpp"

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

struct BindCase {
  const char* text;
  const char* bound;
  std::vector<std::string> names;
};

BOOST_AUTO_TEST_CASE(bind_named_parameters_table) {
  const std::vector<BindCase> cases = {
      {"SELECT 1", "SELECT 1", {}},
      {"SELECT * FROM t WHERE id = :master_id", "SELECT * FROM t WHERE id = ?", {"master_id"}},
      {"SELECT :a, :b_2, :a", "SELECT ?, ?, ?", {"a", "b_2", "a"}},
      {"SELECT * FROM t WHERE id=:id AND x=:_x", "SELECT * FROM t WHERE id=? AND x=?", {"id", "_x"}},
      // Not parameters: inside quotes (with escapes), `::`, a colon before a digit or at the end.
      {"SELECT ':a', \":b\", `:c`", "SELECT ':a', \":b\", `:c`", {}},
      {"SELECT 'it\\'s :x', :y", "SELECT 'it\\'s :x', ?", {"y"}},
      {"SELECT a::b, :1, x:", "SELECT a::b, :1, x:", {}},
      {"SELECT '':a", "SELECT ''?", {"a"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("text: " << c.text) {
      std::vector<std::string> names;
      BOOST_CHECK_EQUAL(svc::db::bind_named_parameters(c.text, names), c.bound);
      BOOST_CHECK_EQUAL_COLLECTIONS(names.begin(), names.end(), c.names.begin(), c.names.end());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
