// svc-admin doctor's checks that need no database or network: key strength,
// the configuration's SMS templates, the nginx snippet, the table and the
// exit status.
#include "admin/doctor_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "crypto/breached_file.hpp"
#include "crypto/breached_import.hpp"

using namespace svc::admin;
using svc::config::Config;
using svc::config::KeySettings;
using svc::config::SmsSettings;

namespace {

// 32 bytes with 32 distinct values, shifted so two keys differ.
std::string random_like(char first) {
  std::string s;
  for (int i = 0; i < 32; ++i) s += static_cast<char>(first + i);
  return s;
}

KeySettings good_keys() {
  KeySettings k;
  k.jwt.current = {"k1", random_like('A')};
  k.id_key = random_like('!');
  k.sms_key = random_like('0');
  k.reset_key = random_like('a');
  k.signing_kek = random_like('P');
  return k;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(doctor_checks_test)

BOOST_AUTO_TEST_CASE(keys_table) {
  struct Case {
    const char* what;
    void (*spoil)(KeySettings&);
    unsigned mode;
    const char* detail;  // "" = passes
  };
  const std::vector<Case> cases = {
      {"good", [](KeySettings&) {}, 0100640, ""},
      {"missing", [](KeySettings& k) { k.sms_key.clear(); }, 0100640, "[keys] sms_key is missing"},
      {"repeated byte", [](KeySettings& k) { k.id_key = std::string(32, 'a'); }, 0100640, "[keys] id_key looks weak"},
      {"short pattern", [](KeySettings& k) { k.reset_key = std::string(8, 'x') + "0123456789" + std::string(14, 'y'); },
       0100640, "[keys] reset_key looks weak"},
      {"duplicate", [](KeySettings& k) { k.reset_key = k.id_key; }, 0100640, "[keys] reset_key equals id_key"},
      {"weak kek", [](KeySettings& k) { k.signing_kek = std::string(32, 'x'); }, 0100640,
       "[keys] signing_kek looks weak"},
      {"kek reused", [](KeySettings& k) { k.signing_kek = k.jwt.current.secret; }, 0100640,
       "[keys] signing_kek equals jwt_secret"},
      {"previous equals current",
       [](KeySettings& k) {
         k.jwt.previous = {{"k0", k.jwt.current.secret}};
       },
       0100640, "[keys] jwt_previous k0 equals jwt_secret"},
      {"world readable", [](KeySettings&) {}, 0100644, "readable or writable by other users"},
  };
  for (const auto& c : cases) {
    KeySettings k = good_keys();
    c.spoil(k);
    const Check row = check_keys(k, c.mode);
    BOOST_TEST_CONTEXT(c.what) {
      BOOST_TEST(row.name == "keys");
      BOOST_TEST((row.status == Check::Status::Ok) == (std::string(c.detail).empty()));
      if (*c.detail) BOOST_TEST(row.detail.find(c.detail) != std::string::npos, row.detail);
      if (*c.detail) BOOST_TEST(!row.fix.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(access_tokens_row_fails_the_legacy_hs256) {
  svc::config::TokenSettings tokens;
  const Check good = check_access_tokens(tokens);
  BOOST_TEST((good.status == Check::Status::Ok));
  BOOST_TEST(good.detail == "ES256, issuer https://svc.localhost");
  tokens.access_alg = "HS256";
  const Check legacy = check_access_tokens(tokens);
  BOOST_TEST((legacy.status == Check::Status::Fail));
  BOOST_TEST(legacy.name == "access tokens");
  BOOST_TEST(legacy.detail.find("can forge any user's access token") != std::string::npos, legacy.detail);
  BOOST_TEST(legacy.fix.find("/.well-known/jwks.json") != std::string::npos, legacy.fix);
}

BOOST_AUTO_TEST_CASE(sms_templates) {
  SmsSettings sms;
  BOOST_TEST((check_config_templates(sms).status == Check::Status::Ok));
  sms.message = "Your code";
  BOOST_TEST(check_config_templates(sms).detail == "[sms] message has no [code]");
  sms.message = "Code [code]";
  sms.driver = "http";
  sms.body_template = R"({"to":"[to]"})";
  BOOST_TEST(check_config_templates(sms).detail == "[sms] body_template has no [text]");
  sms.driver = "log";  // the log driver has no body
  BOOST_TEST((check_config_templates(sms).status == Check::Status::Ok));
}

BOOST_AUTO_TEST_CASE(nginx_snippet) {
  char path[] = "/tmp/doctor-snippet-XXXXXX";
  const int fd = mkstemp(path);
  BOOST_REQUIRE(fd >= 0);
  close(fd);
  BOOST_TEST(check_nginx_snippet(path).detail == std::string(path) + " has no fastcgi_pass");
  std::ofstream(path) << "location / { fastcgi_pass svc_fcgi; }\n";
  BOOST_TEST((check_nginx_snippet(path).status == Check::Status::Ok));
  std::remove(path);
  BOOST_TEST(check_nginx_snippet(path).detail == std::string(path) + " is missing or unreadable");
}

// The front secret row: svc's file and nginx's root-only include, each
// spoiled in one way.
BOOST_AUTO_TEST_CASE(front_secret_table) {
  char dir[] = "/tmp/doctor-front-XXXXXX";
  BOOST_REQUIRE(mkdtemp(dir) != nullptr);
  const std::string svc_file = std::string(dir) + "/front-secret";
  const std::string include = std::string(dir) + "/svc-front-secret.conf";
  const std::string secret(43, 'q');
  const auto write = [](const std::string& path, const std::string& text, mode_t mode) {
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
  };
  const auto good = [&] {
    write(svc_file, secret + "\n", 0640);
    write(include, "fastcgi_param  SVC_FRONT_SECRET  \"" + secret + "\";\n", 0600);
  };
  const unsigned me = geteuid();
  const unsigned stranger = me + 1;

  good();
  Check row = check_front_secret(svc_file, include, me);
  BOOST_TEST((row.status == Check::Status::Ok), row.detail);
  BOOST_TEST(row.detail == include + " (root only) and " + svc_file + " agree");
  if (me == 0) {
    BOOST_TEST((check_front_secret(svc_file, include, stranger).status == Check::Status::Ok),
               "owned by root: passes whoever runs doctor");
  } else {
    BOOST_TEST(check_front_secret(svc_file, include, stranger).detail == include + " is not owned by root");
  }
  BOOST_TEST(check_front_secret("", include, me).detail ==
             "off ([server] front_secret_file = none): any process that can open the socket skips nginx");

  write(include, "fastcgi_param  SVC_FRONT_SECRET  \"" + secret + "\";\n", 0640);
  BOOST_TEST(check_front_secret(svc_file, include, me).detail ==
             include + " is readable by other users than its owner (PHP-FPM could read the secret)");
  write(include, "fastcgi_param  SVC_FRONT_SECRET  \"" + std::string(43, 'r') + "\";\n", 0600);
  BOOST_TEST(check_front_secret(svc_file, include, me).detail ==
             include + " does not pass [server] front_secret_file's secret as SVC_FRONT_SECRET");
  write(include, "fastcgi_param  SVC_FRONT_SECRET  \"" + secret + "x\";\n", 0600);
  BOOST_TEST((check_front_secret(svc_file, include, me).status == Check::Status::Fail), "a longer value differs");
  std::remove(include.c_str());
  BOOST_TEST(check_front_secret(svc_file, include, me).detail == include + " is missing");

  good();
  chmod(svc_file.c_str(), 0644);
  BOOST_TEST(check_front_secret(svc_file, include, me).detail == svc_file + " is readable by other users");
  write(svc_file, "short\n", 0640);
  BOOST_TEST((check_front_secret(svc_file, include, me).status == Check::Status::Fail));
  std::remove(svc_file.c_str());
  BOOST_TEST(check_front_secret(svc_file, include, me).detail.find("cannot read " + svc_file) != std::string::npos);
  std::remove(include.c_str());
  rmdir(dir);
}

BOOST_AUTO_TEST_CASE(protective_settings) {
  Config c;
  Check row = check_protective_settings(c);
  BOOST_TEST((row.status == Check::Status::Ok));
  BOOST_TEST(row.detail ==
             "no tests-only setting; a revoked site key stops working within 1 s ([server] site_cache_seconds)");
  c.server.site_cache_seconds = 60;
  BOOST_TEST(check_protective_settings(c).detail.find("within 60 s") != std::string::npos);
  c.server.test_mode = true;
  row = check_protective_settings(c);
  BOOST_TEST(row.detail == "[server] test_mode = true: a test configuration");
  BOOST_TEST((row.status == Check::Status::Warn));
  c.push.allow_insecure_endpoints = true;
  c.server.front_secret_file.clear();
  row = check_protective_settings(c);
  BOOST_TEST((row.status == Check::Status::Warn));
  BOOST_TEST(row.detail ==
             "[server] test_mode = true: a test configuration; [push] allow_insecure_endpoints = true (no SSRF "
             "guard); [server] front_secret_file = none");
}

BOOST_AUTO_TEST_CASE(failing_webhook_endpoints) {
  BOOST_TEST((check_webhooks({}, 5).status == Check::Status::Ok));
  BOOST_TEST(check_webhooks({}, 5).detail == "no enabled endpoint has failed 5 attempts in a row");
  svc::db::WebhookEndpoint a;
  a.id = 4;
  a.site_id = 1;
  a.url = "https://shop.example/hooks";
  a.failures = 7;
  svc::db::WebhookEndpoint b = a;
  b.id = 9;
  b.site_id = 3;
  b.url = "https://other.example/x";
  b.failures = 12;
  const Check row = check_webhooks({a, b}, 5);
  BOOST_TEST(row.name == "webhooks");
  BOOST_TEST((row.status == Check::Status::Fail));
  BOOST_TEST(row.detail ==
             "endpoints failing 5 or more attempts in a row: 4 (site 1, 7 failures, https://shop.example/hooks), "
             "9 (site 3, 12 failures, https://other.example/x)");
  BOOST_TEST(row.fix ==
             "svc-admin webhook deliveries --site N shows the errors; fix the receiver, or svc-admin webhook "
             "disable ID");
}

BOOST_AUTO_TEST_CASE(table_and_exit_status) {
  const std::vector<Check> rows = {ok("config", "valid"), fail("site keys", "1 Demo", "set a key"),
                                   skip("pending", "database unreachable")};
  BOOST_TEST(format_table(rows) ==
             "CHECK      RESULT  DETAIL\n"
             "config     ok      valid\n"
             "site keys  FAIL    1 Demo\n"
             "                   fix: set a key\n"
             "pending    skip    database unreachable\n"
             "                   fix: fix the rows above first\n");
  BOOST_TEST(exit_status(rows) == 1);
  BOOST_TEST(exit_status({rows[0]}) == 0);
  BOOST_TEST(exit_status({rows[2]}) == 1);  // a skipped row is not a pass
  // A warning is shown with its fix but does not fail the run.
  const std::vector<Check> warned = {ok("config", "valid"), warn("settings", "test_mode", "not in production")};
  BOOST_TEST(format_table(warned) ==
             "CHECK     RESULT  DETAIL\n"
             "config    ok      valid\n"
             "settings  warn    test_mode\n"
             "                  fix: not in production\n");
  BOOST_TEST(exit_status(warned) == 0);
}

BOOST_AUTO_TEST_CASE(breached_list_row_warns_about_a_list_without_page_index) {
  const std::string dir = "/tmp/svc-doctor-breached-" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  {  // version 2, as the import writes it
    svc::crypto::BreachedWriter writer(dir + "/v2.bin");
    writer.add(42);
    svc::crypto::BreachedHeader h{};
    h.min_count = 1;
    writer.commit(h);
  }
  {  // version 1: a 64-byte header and the entries
    svc::crypto::BreachedHeader h{};
    std::memcpy(h.magic, svc::crypto::kBreachedMagic, sizeof h.magic);
    h.version = 1;
    h.header_size = sizeof h;
    h.count = 1;
    h.min_count = 1;
    const uint64_t key = 42;
    std::ofstream out(dir + "/v1.bin", std::ios::binary);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(&key), sizeof key);
  }
  const Check v2 = check_breached_list(dir + "/v2.bin", 86400 * 2);
  BOOST_TEST((v2.status == Check::Status::Ok));
  BOOST_TEST(v2.detail.find("1 entries (--min-count 1)") != std::string::npos, v2.detail);
  const Check v1 = check_breached_list(dir + "/v1.bin", 86400 * 2);
  BOOST_TEST((v1.status == Check::Status::Warn));
  BOOST_TEST(v1.detail.find("format version 1 has no page index") != std::string::npos, v1.detail);
  BOOST_TEST(v1.fix.find("import-breached") != std::string::npos, v1.fix);
  BOOST_TEST((check_breached_list(dir + "/absent.bin", 0).status == Check::Status::Fail));
  std::remove((dir + "/v1.bin").c_str());
  std::remove((dir + "/v2.bin").c_str());
  ::rmdir(dir.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
