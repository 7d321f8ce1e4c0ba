// The dispatcher's own replies, one row per request it must refuse before (or
// instead of) a handler: unknown path, wrong method, oversized or malformed
// body, missing site. The database is unreachable, so a request that gets
// past every check ends in the catch site's generic 500. Random inputs are
// the job of tests/fuzz/dispatch_fuzz.cpp.
#include "http/dispatch.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

#include "app/routes.hpp"
#include "offline_context.hpp"

namespace {

struct Row {
  std::string name;
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;
  std::string body;
  long long content_length;  // -1: absent; -2: the body's size
  int status;
  std::string reply;
};

const std::string kNotFound = R"({"status":"Failed","message":"Not found"})";
const std::string kNotAllowed = R"({"status":"Failed","message":"Method not allowed"})";
const std::string kTooLarge = R"({"status":"Failed","message":"Request body too large"})";
const std::string kNotObject =
    R"({"status":"Failed","message":"Validation error","errors":[{"field":"body","message":"Request body must be a JSON object"}]})";
const std::string kMalformed =
    R"({"status":"Failed","message":"Validation error","errors":[{"field":"body","message":"Malformed JSON"}]})";
const std::string kUnauthorized = R"({"status":"Error","message":"Unauthorized"})";
const std::string kGeneric = R"({"status":"Failed","message":"An error occurred while processing your request"})";
const std::string kLoginFieldsMissing =
    R"({"status":"Failed","message":"Validation error","errors":[)"
    R"({"field":"email","message":"email is required"},{"field":"password","message":"password is required"}]})";
const std::string kBadAuthTable = R"({"status":"Failed","message":"Validation error","errors":[)"
                                  R"({"field":"authTable","message":"authTable is not an allowed table"}]})";

const std::string kUnsupported = R"({"status":"Failed","message":"Unsupported Media Type"})";
std::string duplicate(const std::string& field) {
  return R"({"status":"Failed","message":"Validation error","errors":[{"field":")" + field +
         R"(","message":"Duplicate member name"}]})";
}

const std::string kLogin = R"({"email":"a@example.com","password":"Passw0rd!"})";
const std::string kTooDeep = R"({"status":"Failed","message":"Validation error","errors":[)"
                             R"({"field":"body","message":"JSON must not be nested deeper than 64 levels"}]})";
// A login body whose extra member holds `arrays` nested arrays inside an
// object: arrays + 2 levels deep.
std::string nested_login(size_t arrays) {
  return R"({"email":"a@example.com","password":"Passw0rd!","x":{"y":)" + std::string(arrays, '[') +
         std::string(arrays, ']') + "}}";
}
const std::string kNotification = R"({"event":"welcome","email":"a@example.com"})";

std::vector<Row> rows() {
  const std::string over_limit(64 * 1024 + 1, ' ');
  return {
      {"unknown path", "GET", "/nope", {}, "", -1, 404, kNotFound},
      {"path is case-sensitive", "POST", "/Auth/login", {}, kLogin, -2, 404, kNotFound},
      {"trailing slash", "POST", "/auth/login/", {}, kLogin, -2, 404, kNotFound},
      {"empty path", "POST", "", {}, kLogin, -2, 404, kNotFound},
      {"wrong method", "GET", "/auth/login", {}, "", -1, 405, kNotAllowed},
      {"empty method", "", "/health", {}, "", -1, 405, kNotAllowed},
      {"declared length over the limit", "POST", "/auth/login", {}, "{}", 64 * 1024 + 1, 413, kTooLarge},
      {"body over the limit, no length", "POST", "/auth/login", {}, over_limit, -1, 413, kTooLarge},
      {"empty body", "POST", "/auth/login", {}, "", -2, 400, kNotObject},
      {"blank body", "POST", "/auth/login", {}, " \r\n\t", -2, 400, kNotObject},
      {"array body", "POST", "/auth/login", {}, "[1]", -2, 400, kNotObject},
      {"string body", "POST", "/auth/login", {}, R"("x")", -2, 400, kNotObject},
      {"unterminated object", "POST", "/auth/login", {}, "{", -2, 400, kMalformed},
      {"trailing garbage", "POST", "/auth/login", {}, kLogin + "x", -2, 400, kMalformed},
      {"NUL after the object", "POST", "/auth/login", {}, kLogin + std::string(1, '\0'), -2, 400, kMalformed},
      {"invalid UTF-8", "POST", "/auth/login", {}, "{\"email\":\"\xff\"}", -2, 400, kMalformed},
      {"overlong UTF-8", "POST", "/auth/login", {}, "{\"email\":\"\xc0\xaf\"}", -2, 400, kMalformed},
      {"invalid UTF-8 after valid", "POST", "/auth/login", {}, "{\"email\":\"\xc3\xa9\xff\"}", -2, 400, kMalformed},
      {"valid UTF-8 reaches the handler",
       "POST",
       "/auth/login",
       {},
       "{\"email\":\"a@example.com\",\"password\":\"P\xc3\xa4ssw0rd!\"}",
       -2,
       500,
       kGeneric},
      {"lone low surrogate", "POST", "/auth/login", {}, R"({"email":"\udc00"})", -2, 400, kMalformed},
      {"lone high surrogate", "POST", "/auth/login", {}, R"({"email":"\ud800"})", -2, 400, kMalformed},
      {"login without fields", "POST", "/auth/login", {}, "{}", -2, 400, kLoginFieldsMissing},
      {"login, table not allowed",
       "POST",
       "/auth/login",
       {},
       R"({"email":"a@example.com","password":"Passw0rd!","authTable":"mysql.user"})",
       -2,
       400,
       kBadAuthTable},
      {"login reaching the database", "POST", "/auth/login", {}, kLogin, -2, 500, kGeneric},
      // Nesting: 64 levels (the body itself is one) reach the handler, 65 do not.
      {"64 levels", "POST", "/auth/login", {}, nested_login(62), -2, 500, kGeneric},
      {"65 levels", "POST", "/auth/login", {}, nested_login(63), -2, 400, kTooDeep},
      {"deep and malformed", "POST", "/auth/login", {}, std::string(30000, '['), -2, 400, kTooDeep},
      // Content-Type: application/json only (parameters and case are free).
      {"no content type", "POST", "/auth/login", {{"content-type", ""}}, kLogin, -2, 415, kUnsupported},
      {"text/plain", "POST", "/auth/request-pass", {{"content-type", "text/plain"}}, kLogin, -2, 415, kUnsupported},
      {"form",
       "POST",
       "/auth/login",
       {{"content-type", "application/x-www-form-urlencoded"}},
       kLogin,
       -2,
       415,
       kUnsupported},
      {"json prefix", "POST", "/auth/login", {{"content-type", "application/jsonx"}}, kLogin, -2, 415, kUnsupported},
      {"charset and case",
       "POST",
       "/auth/login",
       {{"content-type", "Application/JSON ; charset=utf-8"}},
       kLogin,
       -2,
       500,
       kGeneric},
      {"415 before the limit",
       "POST",
       "/auth/login",
       {{"content-type", "text/plain"}},
       "{}",
       64 * 1024 + 1,
       415,
       kUnsupported},
      {"site check before 415",
       "POST",
       "/message/notification",
       {{"content-type", "text/plain"}},
       kNotification,
       -2,
       401,
       kUnauthorized},
      // Repeated member names: the first top-level member they occur under.
      {"duplicate top-level member",
       "POST",
       "/auth/login",
       {},
       R"({"email":"a@example.com","password":"Passw0rd!","email":"b@example.com"})",
       -2,
       400,
       duplicate("email")},
      {"duplicate nested member",
       "POST",
       "/auth/login",
       {},
       R"({"email":"a@example.com","password":"Passw0rd!","x":[{"a":1,"a":2}]})",
       -2,
       400,
       duplicate("x")},
      {"same name at two levels is fine",
       "POST",
       "/auth/login",
       {},
       R"({"email":"a@example.com","password":"Passw0rd!","x":{"email":1}})",
       -2,
       500,
       kGeneric},
      {"no site header", "POST", "/message/notification", {}, kNotification, -2, 401, kUnauthorized},
      {"site id not a number",
       "POST",
       "/message/notification",
       {{"site-id", "1x"}},
       kNotification,
       -2,
       401,
       kUnauthorized},
      {"site id zero", "POST", "/message/notification", {{"site-id", "0"}}, kNotification, -2, 401, kUnauthorized},
      {"site id negative", "POST", "/message/sendPush", {{"x-site-id", "-1"}}, "{}", -2, 401, kUnauthorized},
      {"site lookup reaching the database",
       "POST",
       "/message/notification",
       {{"site-id", "1"}},
       kNotification,
       -2,
       500,
       kGeneric},
      // The site is checked before the body is read or parsed: a caller that
      // is no site learns nothing about the body and costs no JSON parsing.
      {"malformed body, no site header", "POST", "/message/notification", {}, "{", -2, 401, kUnauthorized},
      {"array body, no site header", "POST", "/message/sendPush", {}, "[1]", -2, 401, kUnauthorized},
      {"empty body, no site header", "POST", "/message/notification", {}, "", -2, 401, kUnauthorized},
      {"malformed body, bad site id",
       "POST",
       "/message/notification",
       {{"site-id", "1x"}},
       "{",
       -2,
       401,
       kUnauthorized},
      {"declared length over the limit, no site header",
       "POST",
       "/message/notification",
       {},
       kNotification,
       1024 * 1024 + 1,
       401,
       kUnauthorized},
      {"body over the limit, no site header",
       "POST",
       "/message/sendPush",
       {{"x-site-id", "-1"}},
       std::string(1024 * 1024 + 1, ' '),
       -1,
       401,
       kUnauthorized},
      // With a site header the lookup comes first: here it reaches the
      // (unreachable) database before the malformed body or the limit.
      {"site lookup before a malformed body",
       "POST",
       "/message/notification",
       {{"site-id", "1"}},
       "{",
       -2,
       500,
       kGeneric},
      {"site lookup before the limit",
       "POST",
       "/message/notification",
       {{"site-id", "1"}},
       kNotification,
       1024 * 1024 + 1,
       500,
       kGeneric},
  };
}

svc::http::Response run(const Row& row, svc::core::Context& ctx) {
  svc::http::Request request;
  request.method = row.method;
  request.path = row.path;
  request.request_id = "dispatch-test";
  request.headers = row.headers;
  // Rows send application/json unless they name a content type ("" = none).
  request.headers.emplace("content-type", "application/json");
  if (request.headers["content-type"].empty()) request.headers.erase("content-type");
  request.content_length = row.content_length == -2 ? static_cast<long long>(row.body.size()) : row.content_length;
  svc::http::StringBody body(row.body);
  return svc::http::dispatch(svc::app::routes(), request, body, ctx);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dispatch_test)

BOOST_AUTO_TEST_CASE(refused_requests_get_the_exact_reply) {
  svc::testing::OfflineContext offline;
  for (const Row& row : rows()) {
    BOOST_TEST_CONTEXT(row.name) {
      const svc::http::Response res = run(row, offline.ctx);
      BOOST_TEST(res.status == row.status);
      BOOST_TEST(res.body == row.reply);
    }
  }
}

BOOST_AUTO_TEST_CASE(wrong_method_names_the_allowed_ones) {
  svc::testing::OfflineContext offline;
  const svc::http::Response res = run({"", "DELETE", "/auth/sign-out", {}, "", -1, 0, ""}, offline.ctx);
  BOOST_TEST(res.status == 405);
  BOOST_TEST(res.headers.size() == 1u);
  BOOST_TEST(res.headers.at(0).first == "Allow");
  BOOST_TEST(res.headers.at(0).second == "POST");
}

BOOST_AUTO_TEST_SUITE_END()
