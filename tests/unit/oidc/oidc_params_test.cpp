// OAuth 2.0 parameter handling (oidc/params.hpp) and the pieces of the
// provider that need no database: form decoding with RFC 6749 3.1's
// repeated-parameter rule, the redirect's query, redirect URI registration
// rules, the at_hash of OpenID Connect Core's example, and ID tokens read
// back as id_token_hint.
#include <boost/test/unit_test.hpp>

#include "crypto/signing_key.hpp"
#include "http/request.hpp"
#include "http/routes.hpp"
#include "offline_context.hpp"
#include "oidc/clients.hpp"
#include "oidc/id_token.hpp"
#include "oidc/issuer.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

using namespace svc;

BOOST_AUTO_TEST_SUITE(oidc_params_test)

BOOST_AUTO_TEST_CASE(form_values_decode_and_repeats_are_named) {
  const auto p = oidc::parse_params("a=1&b=x%20y+z&c=&d&e=%C3%A9");
  BOOST_TEST(p.value("a") == "1");
  BOOST_TEST(p.value("b") == "x y z");
  BOOST_TEST(!p.get("c").has_value());  // empty = omitted (RFC 6749 3.1)
  BOOST_TEST(!p.get("d").has_value());
  BOOST_TEST(p.value("e") == "\xC3\xA9");
  BOOST_TEST(p.repeated.empty());
  BOOST_TEST(p.malformed.empty());
  BOOST_TEST(oidc::parse_params("state=1&scope=openid&state=2").repeated == "state");
  BOOST_TEST(oidc::parse_params("state=%zz").malformed == "state");
  BOOST_TEST(oidc::parse_params("state=%00").malformed == "state");
  BOOST_TEST(oidc::parse_params("state=%C3").malformed == "state");  // cut UTF-8
  BOOST_TEST(oidc::parse_params("state=%").malformed == "state");
}

BOOST_AUTO_TEST_CASE(redirect_query_is_appended_and_encoded) {
  BOOST_TEST(oidc::append_query("https://rp.example/cb", {{"code", "a b"}, {"state", "x&y=z"}}) ==
             "https://rp.example/cb?code=a%20b&state=x%26y%3Dz");
  BOOST_TEST(oidc::append_query("https://rp.example/cb?keep=1", {{"code", "c"}}) ==
             "https://rp.example/cb?keep=1&code=c");
}

BOOST_AUTO_TEST_CASE(redirect_uris_registered_only_when_safe) {
  for (const char* ok : {"https://rp.example/cb", "http://127.0.0.1:8080/cb", "http://localhost/cb", "http://[::1]:9/x",
                         "com.example.app:/callback"}) {
    BOOST_TEST(oidc::redirect_uri_problem(ok).empty(), ok);
  }
  for (const char* bad :
       {"", "/cb", "http://rp.example/cb", "https://rp.example/cb#frag", "https://rp example/", "javascript:alert(1)",
        "http://localhost.evil.example/cb", "https:rp",
        // user information: RFC 3986 reads the host after "@" (evil.example)
        "http://127.0.0.1:80@evil.example/cb", "http://localhost@evil.example/cb", "http://[::1]:9@evil.example/",
        "https://user:pw@rp.example/cb", "http://127.0.0.1:8x/cb", "http://127.0.0.1.evil.example/cb"}) {
    BOOST_TEST(!oidc::redirect_uri_problem(bad).empty(), bad);
  }
}

BOOST_AUTO_TEST_CASE(site_paths_match_digits_only) {
  BOOST_TEST(http::path_matches("/oidc/*/token", "/oidc/1/token"));
  BOOST_TEST(http::path_matches("/oidc/*/token", "/oidc/123456789012345678/token"));
  BOOST_TEST(!http::path_matches("/oidc/*/token", "/oidc/1234567890123456789/token"));
  BOOST_TEST(!http::path_matches("/oidc/*/token", "/oidc//token"));
  BOOST_TEST(!http::path_matches("/oidc/*/token", "/oidc/a/token"));
  BOOST_TEST(!http::path_matches("/oidc/*/token", "/oidc/1/x/token"));
  BOOST_TEST(!http::path_matches("/oidc/*/token", "/oidc/1/token/"));
  BOOST_TEST(http::path_matches("/auth/login", "/auth/login"));
  BOOST_TEST(!http::path_matches("/auth/login", "/auth/logi"));
}

// The management API's paths: several '*' (ids) and '?' (names).
BOOST_AUTO_TEST_CASE(admin_paths_match_ids_and_names) {
  BOOST_TEST(http::path_matches("/admin/sites/*/users/*", "/admin/sites/3/users/42"));
  BOOST_TEST(!http::path_matches("/admin/sites/*/users/*", "/admin/sites/3/users/42/sessions"));
  BOOST_TEST(!http::path_matches("/admin/sites/*/users/*", "/admin/sites/3/users"));
  BOOST_TEST(!http::path_matches("/admin/sites/*/users/*", "/admin/sites/x/users/42"));
  BOOST_TEST(http::path_matches("/admin/sites/*/clients/?", "/admin/sites/3/clients/shop-app_1.v2"));
  BOOST_TEST(!http::path_matches("/admin/sites/*/clients/?", "/admin/sites/3/clients/.."));
  BOOST_TEST(!http::path_matches("/admin/sites/*/clients/?", "/admin/sites/3/clients/a%2Fb"));
  BOOST_TEST(!http::path_matches("/admin/sites/*/clients/?", "/admin/sites/3/clients/"));
  BOOST_TEST(http::path_matches("/admin/sites/*", "/admin/sites/7"));
  BOOST_TEST(!http::path_matches("/admin/sites/*", "/admin/sites/7/"));
  const auto segments = http::path_segments("/admin/sites/3/users/42");
  BOOST_TEST(segments.size() == 5u);
  BOOST_TEST(segments[2] == "3");
  BOOST_TEST(segments[4] == "42");
}

// OpenID Connect Core 1.0 appendix A.3: the example's access token and at_hash.
BOOST_AUTO_TEST_CASE(at_hash_matches_the_core_example) {
  BOOST_TEST(oidc::at_hash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", crypto::SigningAlg::kRS256) ==
             "77QmUPtjPfzWtF2AnpK9RQ");
}

BOOST_AUTO_TEST_CASE(id_tokens_read_back_as_hints_only_with_their_key_and_issuer) {
  const auto m = crypto::generate_signing_key(crypto::SigningAlg::kRS256);
  const auto key = *crypto::SigningKey::load_pair("rs-1", m.alg, m.private_key, m.public_key);
  oidc::IdClaims c;
  c.iss = "https://svc.example/oidc/1";
  c.sub = "7";
  c.aud = "client-a";
  c.iat = 100;
  c.exp = 200;  // long expired: a hint still names its session
  c.sid = "sid-1";
  db::User user;
  user.email = "a@example.com";
  const std::string token = oidc::sign_id_token(c, user, "openid email", key);
  const crypto::SigningKey keys[] = {key};
  auto hint = oidc::read_id_token_hint(token, keys, c.iss);
  BOOST_REQUIRE(hint.has_value());
  BOOST_TEST(hint->aud == "client-a");
  BOOST_TEST(hint->sid == "sid-1");
  BOOST_TEST(!oidc::read_id_token_hint(token, keys, "https://svc.example/oidc/2").has_value());
  std::string tampered = token;
  tampered[tampered.size() - 5] = tampered[tampered.size() - 5] == 'A' ? 'B' : 'A';
  BOOST_TEST(!oidc::read_id_token_hint(tampered, keys, c.iss).has_value());
  const auto other = crypto::generate_signing_key(crypto::SigningAlg::kRS256);
  const crypto::SigningKey other_keys[] = {
      *crypto::SigningKey::load_pair("rs-1", other.alg, other.private_key, other.public_key)};
  BOOST_TEST(!oidc::read_id_token_hint(token, other_keys, c.iss).has_value());
}

BOOST_AUTO_TEST_CASE(pages_escape_every_value) {
  const std::string html = oidc::fill("<p title=\"{{a}}\">{{b}}</p>{{missing}}", {{"a", "\"><script>"}, {"b", "x&y"}});
  BOOST_TEST(html == "<p title=\"&quot;&gt;&lt;script&gt;\">x&amp;y</p>");
  const auto page = oidc::message_page(400, "T", "<b>");
  BOOST_TEST(page.body.find("&lt;b&gt;") != std::string::npos);
  bool no_frames = false;
  for (const auto& [name, value] : page.headers)
    no_frames = no_frames || (name == "X-Frame-Options" && value == "DENY");
  BOOST_TEST(no_frames);
}

// Outside loopback the provider's cookies are "__Host-" cookies, and only
// that name is read: a cookie of the bare name (set by a sibling domain or a
// plain-http page) is not the browser's.
BOOST_AUTO_TEST_CASE(cookies_take_the_host_prefix_when_secure) {
  svc::testing::OfflineContext offline;
  http::Request request;
  request.headers["cookie"] = "svc_sso_1=tossed; __Host-svc_sso_1=mine";
  offline.config.tokens.oidc_issuer = "https://auth.example";
  BOOST_TEST(oidc::set_cookie(offline.ctx, "svc_sso_1", "v", -1) ==
             "__Host-svc_sso_1=v; Path=/; HttpOnly; SameSite=Lax; Secure");
  BOOST_TEST(oidc::request_cookie(offline.ctx, request, "svc_sso_1") == "mine");
  request.headers["cookie"] = "svc_sso_1=tossed";
  BOOST_TEST(oidc::request_cookie(offline.ctx, request, "svc_sso_1").empty());
  offline.config.tokens.oidc_issuer = "http://127.0.0.1:8080";  // a loopback development stack: no Secure, no prefix
  BOOST_TEST(oidc::set_cookie(offline.ctx, "svc_sso_1", "v", 0) ==
             "svc_sso_1=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
  BOOST_TEST(oidc::request_cookie(offline.ctx, request, "svc_sso_1") == "tossed");
}

BOOST_AUTO_TEST_SUITE_END()
