// http::ApiError factories: the exact status and body of each shape a client
// sees (the spec compares bodies field by field; the tests compare bytes).
#include "http/api_error.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using svc::http::ApiError;

BOOST_AUTO_TEST_SUITE(api_error_test)

BOOST_AUTO_TEST_CASE(each_factory_writes_its_exact_reply) {
  struct Case {
    const char* name;
    ApiError error;
    int status;
    std::string body;
  };
  const Case cases[] = {
      {"failed", ApiError::failed(401, "Invalid credentials"), 401,
       R"({"status":"Failed","message":"Invalid credentials"})"},
      {"error", ApiError::error(404, "Site not found"), 404, R"({"status":"Error","message":"Site not found"})"},
      {"validation", ApiError::validation("email", "email is required"), 400,
       R"({"status":"Failed","message":"Validation error","errors":[{"field":"email","message":"email is required"}]})"},
      {"too_many login", ApiError::too_many("Too many attempts", 840), 429,
       R"({"status":"Failed","message":"Too many attempts","retry_after":840})"},
      {"too_many sms", ApiError::too_many("Too many requests", 1), 429,
       R"({"status":"Failed","message":"Too many requests","retry_after":1})"},
      {"too_many escapes", ApiError::too_many("say \"wait\"", 60), 429,
       R"({"status":"Failed","message":"say \"wait\"","retry_after":60})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_CHECK_EQUAL(c.error.status(), c.status);
      BOOST_CHECK_EQUAL(c.error.body(), c.body);
      BOOST_CHECK_EQUAL(std::string(c.error.what()), c.body);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
