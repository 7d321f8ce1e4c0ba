// The Settings service's checks that need no database (manage/settings.hpp)
// and how svc-admin names a refused field by its option (admin/operator_env.hpp).
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "admin/args.hpp"
#include "admin/operator_env.hpp"
#include "http/api_error.hpp"
#include "manage/settings.hpp"

using svc::http::ApiError;

BOOST_AUTO_TEST_SUITE(manage_settings)

BOOST_AUTO_TEST_CASE(split_list_trims_and_skips_empty_items) {
  const std::vector<std::string> expected = {"https://a.example/r", "https://b.example/r"};
  BOOST_TEST(svc::manage::split_list(" https://a.example/r ,, https://b.example/r,") == expected);
  BOOST_TEST(svc::manage::split_list("").empty());
}

BOOST_AUTO_TEST_CASE(reset_urls_are_absolute_https_or_loopback_http) {
  BOOST_CHECK_NO_THROW(svc::manage::checked_reset_urls({"https://shop.example/reset", "http://127.0.0.1:8080/r"}));
  BOOST_CHECK_THROW(svc::manage::checked_reset_urls({"http://shop.example/reset"}), ApiError);
  BOOST_CHECK_THROW(svc::manage::checked_reset_urls({"/reset"}), ApiError);
  BOOST_CHECK_THROW(svc::manage::checked_reset_urls({"https://shop.example/" + std::string(2100, 'a')}), ApiError);
}

BOOST_AUTO_TEST_CASE(a_refused_field_is_named_by_its_option) {
  const std::vector<std::pair<std::string, std::string>> options = {{"min_password_score", "min-password-score"},
                                                                    {"passkey_origins", "origins"}};
  try {
    svc::admin::naming_options(options, []() -> int {
      throw ApiError::validation("min_password_score", "min_password_score must be 0 (off) to 4");
    });
    BOOST_FAIL("no error");
  } catch (const svc::admin::UsageError& e) {
    BOOST_TEST(std::string(e.what()) == "--min-password-score must be 0 (off) to 4");
  }
  try {
    svc::admin::naming_options(options, []() -> int {
      throw ApiError::validation("passkey_origins", "'http://evil.example' is not on the RP id localhost");
    });
    BOOST_FAIL("no error");
  } catch (const svc::admin::UsageError& e) {
    BOOST_TEST(std::string(e.what()) == "--origins: 'http://evil.example' is not on the RP id localhost");
  }
  // Anything but a 400 passes through as it is.
  BOOST_CHECK_THROW(
      svc::admin::naming_options(options, []() -> int { throw ApiError::failed(404, "Client not found"); }), ApiError);
}

BOOST_AUTO_TEST_SUITE_END()
