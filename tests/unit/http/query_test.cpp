// http::query_values: every value of one name in a query string, as sent.
#include "http/query.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <string_view>
#include <vector>

using svc::http::query_values;

BOOST_AUTO_TEST_SUITE(query_test)

BOOST_AUTO_TEST_CASE(values_of_one_name_in_order_and_undecoded) {
  struct Case {
    std::string_view query;
    std::vector<std::string> values;
  };
  const Case cases[] = {
      {"", {}},
      {"site=1", {"1"}},
      {"a=1&site=22&b=3", {"22"}},
      {"site=1&site=2", {"1", "2"}},
      {"site=", {""}},
      {"site", {""}},
      {"sites=1&xsite=2&=3", {}},
      {"site=%31", {"%31"}},
      {"site=1=2", {"1=2"}},
      {"&&site=4&", {"4"}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.query) {
      const auto got = query_values(c.query, "site");
      BOOST_TEST(std::vector<std::string>(got.begin(), got.end()) == c.values, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
