// http::Fields: each accessor against each JSON shape, with the value it
// returns and the exact error it records; then the one 400 that collects them.
#include "http/validate.hpp"

#include <rapidjson/document.h>

#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <vector>

using svc::http::ApiError;
using svc::http::Fields;

namespace {

enum class Call { RequiredString, OptionalString, RequiredId, OptionalId, RequiredObject, OptionalObject };

struct Row {
  Call call;
  std::string body;                  // JSON text
  std::optional<std::string> value;  // strings as they are, ids in decimal, objects as "object"
  std::string error;                 // "" = no error recorded
  size_t max_bytes = 4096;
};

// Runs one accessor on field "f" of `body`; returns its value as text and
// the recorded error message.
std::optional<std::string> run(const Row& row, std::string& error) {
  rapidjson::Document doc;
  doc.Parse(row.body.data(), row.body.size());
  BOOST_REQUIRE(!doc.HasParseError());
  Fields fields(doc);
  std::optional<std::string> out;
  auto id_text = [](std::optional<long long> id) -> std::optional<std::string> {
    if (id) return std::to_string(*id);
    return std::nullopt;
  };
  auto object_text = [](const rapidjson::Value* v) -> std::optional<std::string> {
    if (v) return "object";
    return std::nullopt;
  };
  switch (row.call) {
    case Call::RequiredString:
      out = fields.required_string("f", row.max_bytes);
      break;
    case Call::OptionalString:
      out = fields.optional_string("f", row.max_bytes);
      break;
    case Call::RequiredId:
      out = id_text(fields.required_id("f"));
      break;
    case Call::OptionalId:
      out = id_text(fields.optional_id("f"));
      break;
    case Call::RequiredObject:
      out = object_text(fields.required_object("f"));
      break;
    case Call::OptionalObject:
      out = object_text(fields.optional_object("f"));
      break;
  }
  error.clear();
  try {
    fields.throw_if_errors();
  } catch (const ApiError& e) {
    rapidjson::Document reply;
    reply.Parse(e.body().c_str());
    error = reply["errors"][0]["message"].GetString();
    BOOST_TEST(reply["errors"][0]["field"].GetString() == std::string("f"));
    BOOST_TEST(reply["errors"].Size() == 1u);
  }
  BOOST_TEST(fields.ok() == error.empty());
  BOOST_TEST(fields.has_error("f") == !error.empty());
  return out;
}

const std::optional<std::string> kNone = std::nullopt;
const std::string kRequired = "f is required";
const std::string kNotString = "f must be a string";
const std::string kTooLong = "f is too long";
const std::string kNotId = "f must be a positive integer";
const std::string kNotObject = "f must be an object";

using C = Call;
const std::vector<Row> kRows = {
    // required_string
    {C::RequiredString, R"({"f":"abc"})", "abc", ""},
    {C::RequiredString, R"({})", kNone, kRequired},
    {C::RequiredString, R"({"f":null})", kNone, kRequired},
    {C::RequiredString, R"({"f":""})", kNone, kRequired},
    {C::RequiredString, R"({"f":" "})", " ", ""},
    {C::RequiredString, R"({"f":5})", kNone, kNotString},
    {C::RequiredString, R"({"f":false})", kNone, kNotString},
    {C::RequiredString, R"({"f":["x"]})", kNone, kNotString},
    {C::RequiredString, R"({"f":{}})", kNone, kNotString},
    {C::RequiredString, R"({"F":"abc"})", kNone, kRequired},    // names are case-sensitive
    {C::RequiredString, R"([{"f":"abc"}])", kNone, kRequired},  // not an object: no members
    {C::RequiredString, R"({"f":"abcd"})", "abcd", "", 4},
    {C::RequiredString, R"({"f":"abcde"})", kNone, kTooLong, 4},
    {C::RequiredString, R"({"f":"\u00e9\u00e9"})", kNone, kTooLong, 3},  // bytes, not characters
    {C::RequiredString, R"({"f":"a\u0000b"})", std::string("a\0b", 3), ""},
    // optional_string
    {C::OptionalString, R"({})", kNone, ""},
    {C::OptionalString, R"({"f":null})", kNone, ""},
    {C::OptionalString, R"({"f":""})", "", ""},
    {C::OptionalString, R"({"f":"x"})", "x", ""},
    {C::OptionalString, R"({"f":1})", kNone, kNotString},
    {C::OptionalString, R"({"f":"abcde"})", kNone, kTooLong, 4},
    // required_id: a JSON integer or a string of digits, > 0
    {C::RequiredId, R"({"f":42})", "42", ""},
    {C::RequiredId, R"({"f":"42"})", "42", ""},
    {C::RequiredId, R"({"f":"0042"})", "42", ""},
    {C::RequiredId, R"({"f":9223372036854775807})", "9223372036854775807", ""},
    {C::RequiredId, R"({"f":"9223372036854775807"})", "9223372036854775807", ""},
    {C::RequiredId, R"({})", kNone, kRequired},
    {C::RequiredId, R"({"f":null})", kNone, kRequired},
    {C::RequiredId, R"({"f":0})", kNone, kNotId},
    {C::RequiredId, R"({"f":"0"})", kNone, kNotId},
    {C::RequiredId, R"({"f":-1})", kNone, kNotId},
    {C::RequiredId, R"({"f":"-1"})", kNone, kNotId},
    {C::RequiredId, R"({"f":"+1"})", kNone, kNotId},
    {C::RequiredId, R"({"f":""})", kNone, kNotId},
    {C::RequiredId, R"({"f":" 1"})", kNone, kNotId},
    {C::RequiredId, R"({"f":1.5})", kNone, kNotId},
    {C::RequiredId, R"({"f":1.0})", kNone, kNotId},
    {C::RequiredId, R"({"f":1e3})", kNone, kNotId},
    {C::RequiredId, R"({"f":"1e3"})", kNone, kNotId},
    {C::RequiredId, R"({"f":9223372036854775808})", kNone, kNotId},     // above int64
    {C::RequiredId, R"({"f":"9999999999999999999"})", kNone, kNotId},   // 19 digits, above int64
    {C::RequiredId, R"({"f":"00000000000000000001"})", kNone, kNotId},  // 20 characters
    {C::RequiredId, R"({"f":true})", kNone, kNotId},
    {C::RequiredId, R"({"f":[1]})", kNone, kNotId},
    // optional_id
    {C::OptionalId, R"({})", kNone, ""},
    {C::OptionalId, R"({"f":null})", kNone, ""},
    {C::OptionalId, R"({"f":7})", "7", ""},
    {C::OptionalId, R"({"f":"x"})", kNone, kNotId},
    {C::OptionalId, R"({"f":0})", kNone, kNotId},
    // required_object / optional_object
    {C::RequiredObject, R"({"f":{}})", "object", ""},
    {C::RequiredObject, R"({"f":{"a":1}})", "object", ""},
    {C::RequiredObject, R"({})", kNone, kRequired},
    {C::RequiredObject, R"({"f":null})", kNone, kRequired},
    {C::RequiredObject, R"({"f":[]})", kNone, kNotObject},
    {C::RequiredObject, R"({"f":"{}"})", kNone, kNotObject},
    {C::OptionalObject, R"({})", kNone, ""},
    {C::OptionalObject, R"({"f":null})", kNone, ""},
    {C::OptionalObject, R"({"f":{}})", "object", ""},
    {C::OptionalObject, R"({"f":1})", kNone, kNotObject},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(validate_test)

BOOST_AUTO_TEST_CASE(each_accessor_returns_the_value_or_records_the_error) {
  for (size_t i = 0; i < kRows.size(); ++i) {
    const Row& row = kRows[i];
    BOOST_TEST_CONTEXT("row " << i << ": " << row.body << " max " << row.max_bytes) {
      std::string error;
      const std::optional<std::string> got = run(row, error);
      BOOST_TEST(got.has_value() == row.value.has_value());
      if (got && row.value) BOOST_TEST(*got == *row.value);
      BOOST_TEST(error == row.error);
    }
  }
}

BOOST_AUTO_TEST_CASE(errors_are_collected_into_one_400_in_call_order) {
  rapidjson::Document doc;
  doc.Parse(R"({"email":7,"name":"ok","siteId":"x"})");
  Fields fields(doc);
  BOOST_TEST(!fields.required_string("email"));
  BOOST_TEST(*fields.optional_string("name") == "ok");
  BOOST_TEST(!fields.required_id("siteId"));
  BOOST_TEST(!fields.required_object("data"));
  fields.add("password", "password must be at least 8 characters");
  BOOST_TEST(!fields.ok());
  BOOST_TEST(fields.has_error("siteId"));
  BOOST_TEST(!fields.has_error("name"));
  try {
    fields.throw_if_errors();
    BOOST_FAIL("no error");
  } catch (const ApiError& e) {
    BOOST_TEST(e.status() == 400);
    BOOST_TEST(e.body() == R"({"status":"Failed","message":"Validation error","errors":[)"
                           R"({"field":"email","message":"email must be a string"},)"
                           R"({"field":"siteId","message":"siteId must be a positive integer"},)"
                           R"({"field":"data","message":"data is required"},)"
                           R"({"field":"password","message":"password must be at least 8 characters"}]})");
  }
}

BOOST_AUTO_TEST_CASE(no_errors_no_throw) {
  rapidjson::Document doc;
  doc.Parse(R"({"email":"a@example.com"})");
  Fields fields(doc);
  BOOST_TEST(*fields.required_string("email") == "a@example.com");
  BOOST_TEST(fields.ok());
  BOOST_CHECK_NO_THROW(fields.throw_if_errors());
}

BOOST_AUTO_TEST_SUITE_END()
