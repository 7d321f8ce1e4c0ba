// The strict JSON-object reader shared by JWT and sealed-id parsing: one
// table of texts, each with whether it is accepted and, if so, how many
// members it has.
#include "crypto/json_object.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using svc::crypto::parse_json_object;

BOOST_AUTO_TEST_SUITE(json_object_test)

BOOST_AUTO_TEST_CASE(table) {
  using namespace std::string_literals;
  struct Case {
    const char* name;
    std::string json;
    int members;  // -1: refused
  };
  const Case cases[] = {
      {"empty object", "{}", 0},
      {"two members", R"({"uid":1,"exp":2})", 2},
      {"surrounding white space", " \n{\"a\":1}\t ", 1},
      {"same name in a nested object is allowed", R"({"a":{"b":1,"b":2}})", 1},
      {"names differing in case are distinct", R"({"a":1,"A":2})", 2},
      {"embedded NUL in a name is part of it", R"({"a":1,"a\u0000":2})", 2},
      {"duplicate name", R"({"a":1,"a":2})", -1},
      {"duplicate name with different types", R"({"alg":"none","x":0,"alg":"HS256"})", -1},
      {"duplicate spelled with an escape", R"({"a":1,"\u0061":2})", -1},
      {"array", "[1]", -1},
      {"string", R"("a")", -1},
      {"number", "1", -1},
      {"null", "null", -1},
      {"empty text", "", -1},
      {"trailing text", R"({"a":1}x)", -1},
      {"two objects", "{}{}", -1},
      {"unterminated", R"({"a":1)", -1},
      {"single quotes", "{'a':1}", -1},
      {"trailing comma", R"({"a":1,})", -1},
      // rapidjson reads a NUL byte as the end of the text (see the header).
      {"NUL byte after the object ends the text", "{}\0x"s, 0},
      {"deep nesting is refused without recursion", R"({"a":)" + std::string(100000, '['), -1},
      {"64 levels are accepted", R"({"a":)" + std::string(63, '[') + std::string(63, ']') + "}", 1},
      {"65 levels are refused", R"({"a":)" + std::string(64, '[') + std::string(64, ']') + "}", -1},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      const auto doc = parse_json_object(c.json);
      if (c.members < 0) {
        BOOST_TEST(!doc.has_value());
      } else {
        BOOST_TEST_REQUIRE(doc.has_value());
        BOOST_TEST(static_cast<int>(doc->MemberCount()) == c.members);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(values_survive_the_parse) {
  // The document is returned by value: its strings must still be readable.
  const auto doc = parse_json_object(R"({"sub":"42","exp":1700000000})");
  BOOST_TEST_REQUIRE(doc.has_value());
  BOOST_TEST(std::string((*doc)["sub"].GetString()) == "42");
  BOOST_TEST((*doc)["exp"].GetInt64() == 1700000000);
}

BOOST_AUTO_TEST_SUITE_END()
