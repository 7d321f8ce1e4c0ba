// core/json_depth: the bracket count that bounds the nesting of every JSON a
// client sends. One table: text, limit, whether it is within.
#include "core/json_depth.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using svc::core::json_depth_within;
using svc::core::kMaxJsonDepth;

namespace {

std::string arrays(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

}  // namespace

BOOST_AUTO_TEST_SUITE(json_depth_test)

BOOST_AUTO_TEST_CASE(table) {
  struct Case {
    const char* name;
    std::string json;
    size_t limit;
    bool within;
  };
  const Case cases[] = {
      {"empty text", "", 1, true},
      {"scalar", "42", 0, true},
      {"empty object is one level", "{}", 1, true},
      {"one level over a limit of zero", "{}", 0, false},
      {"siblings do not add up", R"({"a":[],"b":{},"c":[[]]})", 3, true},
      {"nested object in array", R"({"a":[{"b":1}]})", 2, false},
      {"same, limit 3", R"({"a":[{"b":1}]})", 3, true},
      {"brackets in a string do not count", R"({"a":"[[[[{{{{"})", 1, true},
      {"escaped quote does not end the string", R"({"a":"\"[[[["})", 1, true},
      {"escaped backslash ends before the quote", R"({"a":"\\"})", 1, true},
      {"after an escaped backslash brackets count", R"({"a":"\\",[[]]})", 2, false},
      {"closing brackets before opening ones", "]]]][", 1, true},
      {"the bound itself", arrays(kMaxJsonDepth), kMaxJsonDepth, true},
      {"one past the bound", arrays(kMaxJsonDepth + 1), kMaxJsonDepth, false},
      {"a hundred thousand levels, unclosed", std::string(100000, '['), kMaxJsonDepth, false},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) { BOOST_TEST(json_depth_within(c.json, c.limit) == c.within); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
