// http/reset_url: which URLs a reset link may point to (issue 22). Parsing,
// the transport rule shared with svc-admin, and prefix matching on parsed
// scheme, host, port and whole path segments.
#include "http/reset_url.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using svc::http::parse_reset_url;
using svc::http::ready_page_link;
using svc::http::reset_transport_ok;
using svc::http::reset_url_allowed;

BOOST_AUTO_TEST_SUITE(reset_url_test)

BOOST_AUTO_TEST_CASE(parses_scheme_host_port_and_path) {
  struct Case {
    std::string url, scheme, host;
    int port;
    std::string path;
  };
  const std::vector<Case> cases = {
      {"https://a.example/reset", "https", "a.example", 443, "/reset"},
      {"HTTPS://A.Example/Reset?x=1#f", "https", "a.example", 443, "/Reset"},
      {"http://localhost", "http", "localhost", 80, "/"},
      {"http://127.0.0.1:8080/r", "http", "127.0.0.1", 8080, "/r"},
      {"https://[::1]:8443/r", "https", "[::1]", 8443, "/r"},
      {"https://a.example?x=/y", "https", "a.example", 443, "/"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.url) {
      auto u = parse_reset_url(c.url);
      BOOST_TEST_REQUIRE(u.has_value());
      BOOST_TEST(u->scheme == c.scheme);
      BOOST_TEST(u->host == c.host);
      BOOST_TEST(u->port == c.port);
      BOOST_TEST(u->path == c.path);
    }
  }
}

BOOST_AUTO_TEST_CASE(refuses_what_a_browser_would_read_otherwise) {
  for (const char* url : {"",
                          "a.example/reset",
                          "//a.example/reset",
                          "ftp://a.example/",
                          "javascript:alert(1)",
                          "https://",
                          "https:///reset",
                          "https://user@a.example/",
                          "https://a.example@evil.example/",
                          "https://a.example:/r",
                          "https://a.example:0/r",
                          "https://a.example:65536/r",
                          "https://a.example:8x/r",
                          "https://a%2eexample/r",
                          "https://a.example\\@evil.example/",
                          "https://a.example/r\\..\\admin",
                          "https://a.exa mple/",
                          "https://a.example/\r\nX: y",
                          "https://a.example/\"><script>",
                          "https://[::1/r",
                          "https://[evil]/r",
                          "https://a.example/r/../admin",
                          "https://a.example/r/./x",
                          "https://a.example/r/..",
                          "https://a.example/r/%2e%2E/admin",
                          "https://a.example/r/.%2e/admin",
                          "https://a.example/r/..;/admin",
                          "https://a.example/r%2f..%2fadmin",
                          "https://a.example/r%5cadmin",
                          "https://xn--a.example/\xc3\xa9",
                          "https://l\xd0\xbe"
                          "calhost/"}) {
    BOOST_TEST_CONTEXT(url) { BOOST_TEST(!parse_reset_url(url).has_value()); }
  }
}

BOOST_AUTO_TEST_CASE(http_only_to_loopback) {
  struct Case {
    const char* url;
    bool ok;
  };
  const Case cases[] = {
      {"https://a.example/r", true},      {"http://a.example/r", false}, {"http://localhost/r", true},
      {"http://127.0.0.1:9/r", true},     {"http://127.9.9.9/r", true},  {"http://[::1]/r", true},
      {"http://localhost.evil/r", false}, {"http://128.0.0.1/r", false}, {"HTTP://LOCALHOST/r", true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.url) {
      auto u = parse_reset_url(c.url);
      BOOST_TEST_REQUIRE(u.has_value());
      BOOST_TEST(reset_transport_ok(*u) == c.ok);
    }
  }
}

BOOST_AUTO_TEST_CASE(prefixes_match_whole_segments_of_the_same_origin) {
  const std::vector<std::string> prefixes = {"https://a.example/reset", "https://b.example:8443/acct/",
                                             "http://127.0.0.1:9/r", "https://c.example"};
  struct Case {
    const char* url;
    bool ok;
  };
  const Case cases[] = {
      {"https://a.example/reset", true},
      {"https://a.example/reset/", true},
      {"https://a.example/reset/step?lang=en", true},
      {"https://a.example:443/reset", true},
      {"https://A.EXAMPLE/reset#x", true},
      {"https://a.example/reset-evil", false},
      {"https://a.example/resetx", false},
      {"https://a.example/Reset", false},
      {"https://a.example/", false},
      {"https://a.example.evil.com/reset", false},
      {"https://evil.com/a.example/reset", false},
      {"https://a.example:444/reset", false},
      {"http://a.example/reset", false},
      {"https://b.example:8443/acct/x", true},
      {"https://b.example:8443/acct", false},
      {"https://b.example/acct/x", false},
      {"http://127.0.0.1:9/r/x", true},
      {"http://127.0.0.1/r", false},
      {"http://localhost:9/r", false},
      {"https://c.example/anything", true},
      {"https://c.example", true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.url) { BOOST_TEST(reset_url_allowed(c.url, prefixes) == c.ok); }
  }
  BOOST_TEST(!reset_url_allowed("https://a.example/reset", {}));
  BOOST_TEST(!reset_url_allowed("http://a.example/reset", {"http://a.example/reset"}));  // http off loopback
  BOOST_TEST(!reset_url_allowed("https://a.example/reset", {"not a url"}));
}

// Links to the ready pages name their site in the query (the page shows its
// name) and keep the token in the fragment (issue 36).
BOOST_AUTO_TEST_CASE(ready_page_link_names_the_site_and_keeps_the_token_in_the_fragment) {
  BOOST_TEST(ready_page_link("https://svc.example/account/reset", 12, "a.b.c") ==
             "https://svc.example/account/reset?site=12#token=a.b.c");
  BOOST_TEST(ready_page_link("https://svc.example/account/verify", 0, "a.b.c") ==
             "https://svc.example/account/verify#token=a.b.c");
}

BOOST_AUTO_TEST_SUITE_END()
