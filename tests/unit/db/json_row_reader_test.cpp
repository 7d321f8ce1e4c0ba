// db/json_row_reader: a row that came back as one JSON_ARRAY reads into the
// same structs, by the same readers, as a result row (the code exchange's
// session and user, db/oauth_repo.cpp take_code). MariaDB's JSON_ARRAY
// writes numbers, strings and null; the integration tests run it for real.
#include "db/json_row_reader.hpp"

#include <rapidjson/document.h>

#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>

#include "db/session_repo.hpp"
#include "db/user_repo.hpp"

BOOST_AUTO_TEST_SUITE(json_row_reader_test)

rapidjson::Document parsed(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  BOOST_REQUIRE(!d.HasParseError());
  return d;
}

BOOST_AUTO_TEST_CASE(values_read_as_a_result_row_reads_them) {
  auto d = parsed(R"(["caf\u00e9 \"x\"", 18446744073709551615, -3, null, 7, null, 1])");
  svc::db::JsonRowReader r(d);
  std::string text;
  unsigned long long big = 0;
  long long negative = 0;
  std::string null_text = "was set";
  std::optional<long long> present;
  std::optional<long long> absent = 5;
  bool flag = false;
  r.read(text, big, negative, null_text, present, absent, flag);
  BOOST_TEST(text == "caf\xc3\xa9 \"x\"");
  BOOST_TEST(big == 18446744073709551615ULL);
  BOOST_TEST(negative == -3);
  BOOST_TEST(null_text.empty());
  BOOST_TEST(present.value_or(0) == 7);
  BOOST_TEST(!absent.has_value());
  BOOST_TEST(flag);
  // Past the end: NULL, as a LEFT JOIN's missing row.
  BOOST_TEST(r.null_next());
  BOOST_TEST(r.text().empty());
  BOOST_TEST(r.integer() == 0);
}

BOOST_AUTO_TEST_CASE(numbers_and_booleans_read_as_text) {
  auto d = parsed("[42, true, false]");
  svc::db::JsonRowReader r(d);
  BOOST_TEST(r.text() == "42");
  BOOST_TEST(r.integer() == 1);  // JSON_ARRAY(x IS NOT NULL) writes true / false
  BOOST_TEST(r.text() == "0");
}

BOOST_AUTO_TEST_CASE(session_and_user_in_one_array) {
  // The order of kSessionColumns, then UserRepo::columns_without_password.
  auto d = parsed(R"(["sid22", 1, "svc_users", 9, 2, 100, 101, 102, 200, 99, "pwd otp", "203.0.113.9", "ua",
                      null, "", 9, "a@example.com", null, "Ada", "L", "user", null, 1, 4, true])");
  svc::db::JsonRowReader r(d);
  const svc::db::SessionRow s = svc::db::read_session_row(r);
  const svc::db::User u = svc::db::UserRepo::read(r);
  BOOST_TEST(s.id == "sid22");
  BOOST_TEST(s.table == "svc_users");
  BOOST_TEST(s.user_id == 9);
  BOOST_TEST(s.generation == 2);
  BOOST_TEST(s.expires_at == 200);
  BOOST_TEST(s.auth_time == 99);
  BOOST_TEST(s.amr == "pwd otp");
  BOOST_TEST(!s.revoked_at.has_value());
  BOOST_TEST(u.id == 9);
  BOOST_TEST(u.email == "a@example.com");
  BOOST_TEST(u.password.empty());
  BOOST_TEST(u.first_name == "Ada");
  BOOST_TEST(u.active);
  BOOST_TEST(u.token_version == 4);
  BOOST_TEST(u.email_verified);
}

BOOST_AUTO_TEST_CASE(a_user_row_the_join_did_not_find_reads_as_id_0) {
  auto d = parsed(R"(["sid22", 1, "svc_staff", 9, 1, 0, 0, 0, 0, 0, "", "", "", 5, "signed_out",
                      null, null, null, null, null, null, null, null, null, false])");
  svc::db::JsonRowReader r(d);
  const svc::db::SessionRow s = svc::db::read_session_row(r);
  const svc::db::User u = svc::db::UserRepo::read(r);
  BOOST_TEST(s.revoked_at.value_or(0) == 5);
  BOOST_TEST(u.id == 0);
  BOOST_TEST(u.email.empty());
}

BOOST_AUTO_TEST_SUITE_END()
