// parse_config: a complete file gives the typed values (and defaults for what
// it leaves out); every bad value, missing required key and unknown key stops
// start-up with the exact line that names the key.
#include "config/config.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "config/ini.hpp"
#include "crypto/encoding.hpp"

using svc::config::Config;
using svc::config::ConfigError;
using svc::config::IniValues;
using svc::config::parse_config;
using svc::config::parse_ini;

namespace {

// base64url of 32 and 33 bytes.
const std::string kKey32 = svc::crypto::base64url_encode(std::string(32, 'k'));
const std::string kKey33 = svc::crypto::base64url_encode(std::string(33, 'k'));

const std::string kGoodFile = R"(# A complete production-like file.
[server]
socket = /run/svc/fcgi.sock
socket_mode = 0600
workers = 3
max_requests = 500
hashing_socket = /run/svc/hashing.sock
site_cache_seconds = 0
test_mode = yes
front_secret_file = none

[database]
socket = /run/mysqld/mysqld.sock
user = svc
password = "  two spaces  "
name = svcdb

[database.merge]
user = svc_merge
port = 3307
statement_timeout_ms = 1500

[auth]
tables = svc_users, svc_staff , ,
access_ttl = 0x3c
argon2_memlimit = 8192
allow_weak_hashing = true

[keys]
jwt_kid = k2
jwt_secret = )" + kKey32 + R"(
jwt_previous = k1:)" + kKey32 +
                              R"(
id_key = )" + kKey32 + R"(
sms_key = )" + kKey32 + R"(
reset_key = )" + kKey32 + R"(
signing_kek = )" + kKey32 + R"(

[tokens]
issuer = https://auth.example/svc
access_alg = EdDSA
key_cache_seconds = 3

[smtp]
security = starttls
auth = login
verify_peer = no

[sms]
driver = http
url = https://sms.example/send
method = PUT

[push]
allow_insecure_endpoints = on
urgency = very-low
)";

IniValues good_values() { return parse_ini(kGoodFile, "svc.conf"); }

// The keys every file must set.
IniValues required_values() {
  return {{"database.user", "svc"}, {"keys.jwt_kid", "k1"},     {"keys.jwt_secret", kKey32}, {"keys.id_key", kKey32},
          {"keys.sms_key", kKey32}, {"keys.reset_key", kKey32}, {"keys.signing_kek", kKey32}};
}

std::string error_of(const IniValues& values) {
  try {
    parse_config(values, "svc.conf");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_test)

BOOST_AUTO_TEST_CASE(good_file_gives_typed_values) {
  const Config c = parse_config(good_values(), "svc.conf");
  BOOST_TEST(c.path == "svc.conf");
  BOOST_TEST(c.server.socket == "/run/svc/fcgi.sock");
  BOOST_TEST(c.server.socket_mode == 0600);  // octal, as written
  BOOST_TEST(c.server.workers == 3);
  BOOST_TEST(c.server.max_requests == 500);
  BOOST_TEST(c.server.hashing_socket == "/run/svc/hashing.sock");
  BOOST_TEST(c.server.site_cache_seconds == 0);
  BOOST_TEST(c.server.test_mode);
  BOOST_TEST(c.server.front_secret_file == "", "none = no check");
  BOOST_TEST(c.database.socket == "/run/mysqld/mysqld.sock");
  BOOST_TEST(c.database.user == "svc");
  BOOST_TEST(c.database.password == "  two spaces  ");
  BOOST_TEST(c.database.name == "svcdb");
  BOOST_TEST(c.merge.user == "svc_merge");
  BOOST_TEST(c.merge.port == 3307);
  BOOST_TEST(c.merge.statement_timeout_ms == 1500);
  BOOST_TEST(c.auth.tables == (std::vector<std::string>{"svc_users", "svc_staff"}), boost::test_tools::per_element());
  BOOST_TEST(c.auth.access_ttl == 60);  // hex, as written
  BOOST_TEST(c.auth.argon2_memlimit == 8192u);
  BOOST_TEST(c.keys.jwt.current.kid == "k2");
  BOOST_TEST(c.keys.jwt.current.secret == std::string(32, 'k'));
  BOOST_TEST(c.keys.jwt.previous.size() == 1u);
  BOOST_TEST(c.keys.jwt.previous.at(0).kid == "k1");
  BOOST_TEST(c.keys.jwt.previous.at(0).secret == std::string(32, 'k'));
  BOOST_TEST(c.keys.id_key == std::string(32, 'k'));
  BOOST_TEST(c.smtp.security == "starttls");
  BOOST_TEST(c.smtp.auth == "login");
  BOOST_TEST(!c.smtp.verify_peer);
  BOOST_TEST(c.sms.driver == "http");
  BOOST_TEST(c.sms.url == "https://sms.example/send");
  BOOST_TEST(c.sms.method == "PUT");
  BOOST_TEST(c.push.allow_insecure_endpoints);
  BOOST_TEST(c.push.urgency == "very-low");
  BOOST_TEST(c.keys.signing_kek == std::string(32, 'k'));
  BOOST_TEST(c.tokens.issuer == "https://auth.example/svc");
  BOOST_TEST(c.tokens.access_alg == "EdDSA");
  BOOST_TEST(c.tokens.key_cache_seconds == 3);
}

BOOST_AUTO_TEST_CASE(unset_keys_keep_their_documented_defaults) {
  const Config c = parse_config(required_values(), "min.conf");
  BOOST_TEST(c.server.socket == "/run/svc/svc-fcgi.sock");
  BOOST_TEST(c.server.socket_mode == 0660);
  BOOST_TEST(c.server.workers == 0);
  BOOST_TEST(c.server.hashing_socket == "");
  BOOST_TEST(c.server.site_cache_seconds == 1);
  BOOST_TEST(!c.server.test_mode);
  BOOST_TEST(c.server.front_secret_file == "/etc/svc/front-secret");
  BOOST_TEST(c.database.host == "localhost");
  BOOST_TEST(!c.database.tls());
  BOOST_TEST(c.database.ssl_verify);
  BOOST_TEST(c.database.port == 3306);
  BOOST_TEST(c.database.name == "svc");
  BOOST_TEST(!c.merge.configured());
  BOOST_TEST(c.auth.tables == (std::vector<std::string>{"svc_users"}), boost::test_tools::per_element());
  BOOST_TEST(c.auth.folder_tables == (std::vector<std::string>{"svc_folders"}), boost::test_tools::per_element());
  BOOST_TEST(c.auth.signup_tables == (std::vector<std::string>{"svc_users"}), boost::test_tools::per_element());
  BOOST_TEST(c.auth.sms.max_wrong_daily == 10);
  BOOST_TEST(c.auth.sms.max_sent_daily == 5);
  BOOST_TEST(c.auth.argon2_memlimit == 19ULL * 1024 * 1024);
  BOOST_TEST(c.keys.jwt.previous.empty());
  BOOST_TEST(c.keys.legacy_password_key == "");
  BOOST_TEST(c.smtp.security == "plain");
  BOOST_TEST(c.smtp.verify_peer);
  BOOST_TEST(c.sms.driver == "log");
  BOOST_TEST(c.push.urgency == "normal");
  BOOST_TEST(c.push.ttl == 2419200);
}

// [auth] signup_tables (issue 22): a subset of tables; unset or empty = the
// first of tables, whatever it is.
// Each of the ten code-rule keys lands in its own field of its own kind;
// unset, the documented defaults hold.
BOOST_AUTO_TEST_CASE(code_rule_keys_set_their_own_fields) {
  const svc::config::AuthSettings defaults = parse_config(required_values(), "svc.conf").auth;
  BOOST_TEST((std::vector<int>{defaults.sms.ttl, defaults.sms.resend_seconds, defaults.sms.max_attempts,
                               defaults.sms.max_sent_daily, defaults.sms.max_wrong_daily}) ==
                 (std::vector<int>{600, 60, 5, 5, 10}),
             boost::test_tools::per_element());
  BOOST_TEST((std::vector<int>{defaults.email_code.ttl, defaults.email_code.resend_seconds,
                               defaults.email_code.max_attempts, defaults.email_code.max_sent_daily,
                               defaults.email_code.max_wrong_daily}) == (std::vector<int>{600, 60, 5, 10, 10}),
             boost::test_tools::per_element());

  IniValues values = required_values();
  values.insert({{"auth.sms_code_ttl", "31"},
                 {"auth.sms_resend_seconds", "32"},
                 {"auth.sms_max_attempts", "33"},
                 {"auth.sms_max_sent_daily", "34"},
                 {"auth.sms_max_wrong_daily", "35"},
                 {"auth.email_code_ttl", "61"},
                 {"auth.email_code_resend_seconds", "12"},
                 {"auth.email_code_max_attempts", "13"},
                 {"auth.email_code_max_sent_daily", "14"},
                 {"auth.email_code_max_wrong_daily", "15"}});
  const svc::config::AuthSettings set = parse_config(values, "svc.conf").auth;
  BOOST_TEST((std::vector<int>{set.sms.ttl, set.sms.resend_seconds, set.sms.max_attempts, set.sms.max_sent_daily,
                               set.sms.max_wrong_daily}) == (std::vector<int>{31, 32, 33, 34, 35}),
             boost::test_tools::per_element());
  BOOST_TEST((std::vector<int>{set.email_code.ttl, set.email_code.resend_seconds, set.email_code.max_attempts,
                               set.email_code.max_sent_daily, set.email_code.max_wrong_daily}) ==
                 (std::vector<int>{61, 12, 13, 14, 15}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(signup_tables_default_to_the_first_auth_table) {
  struct Row {
    std::string tables, signup;
    std::vector<std::string> expected;
  };
  const std::vector<Row> rows = {
      {"svc_staff, svc_users", "", {"svc_staff"}},
      {"svc_users, svc_staff", " , ", {"svc_users"}},
      {"svc_users, svc_staff", "svc_staff", {"svc_staff"}},
      {"svc_users, svc_staff", "svc_users, svc_staff", {"svc_users", "svc_staff"}},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.tables << " / " << row.signup) {
      IniValues values = required_values();
      values["auth.tables"] = row.tables;
      if (!row.signup.empty()) values["auth.signup_tables"] = row.signup;
      BOOST_TEST(parse_config(values, "svc.conf").auth.signup_tables == row.expected, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(tokens_defaults_and_refusals) {
  const Config d = parse_config(required_values(), "svc.conf");
  BOOST_TEST(d.tokens.issuer == "https://svc.localhost");
  BOOST_TEST(d.tokens.access_alg == "ES256");
  BOOST_TEST(!d.tokens.legacy_hs256());
  BOOST_TEST(d.tokens.key_cache_seconds == 5);

  // The legacy HS256 setting needs no key-encryption key; the others do.
  IniValues legacy = required_values();
  legacy.erase("keys.signing_kek");
  legacy["tokens.access_alg"] = "HS256";
  BOOST_TEST(parse_config(legacy, "svc.conf").tokens.legacy_hs256());
  legacy.erase("tokens.access_alg");
  BOOST_TEST(error_of(legacy).find("missing required configuration key [keys] signing_kek (svc-admin keygen") == 0u);

  struct Row {
    std::string key;
    std::string value;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"tokens.issuer", "http://auth.example",
       "configuration key [tokens] issuer: 'http://auth.example' is not an https URL without query or fragment"},
      {"tokens.issuer", "https://",
       "configuration key [tokens] issuer: 'https://' is not an https URL without query or fragment"},
      {"tokens.issuer", "https://a.example/?x=1",
       "configuration key [tokens] issuer: 'https://a.example/?x=1' is not an https URL without query or fragment"},
      {"tokens.access_alg", "RS256",
       "configuration key [tokens] access_alg: expected one of ES256, EdDSA, HS256, got 'RS256'"},
      {"tokens.key_cache_seconds", "61",
       "configuration key [tokens] key_cache_seconds: expected an integer in [0, 60], got '61'"},
      {"keys.signing_kek", svc::crypto::base64url_encode(std::string(31, 'k')),
       "configuration key [keys] signing_kek: expected base64url of 32 bytes"},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.key << " = " << row.value) {
      IniValues v = required_values();
      v[row.key] = row.value;
      BOOST_TEST(error_of(v) == row.error);
    }
  }
}

BOOST_AUTO_TEST_CASE(missing_required_key_is_named) {
  struct Row {
    std::string key;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"database.user", "missing required configuration key [database] user"},
      {"keys.jwt_kid", "missing required configuration key [keys] jwt_kid"},
      {"keys.jwt_secret", "missing required configuration key [keys] jwt_secret (svc-admin keygen prints one)"},
      {"keys.id_key", "missing required configuration key [keys] id_key (svc-admin keygen prints one)"},
      {"keys.sms_key", "missing required configuration key [keys] sms_key (svc-admin keygen prints one)"},
      {"keys.reset_key", "missing required configuration key [keys] reset_key (svc-admin keygen prints one)"},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.key) {
      IniValues absent = required_values();
      absent.erase(row.key);
      BOOST_TEST(error_of(absent) == row.error);
      IniValues empty = required_values();
      empty[row.key] = "";
      BOOST_TEST(error_of(empty) == row.error);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_value_is_named_with_what_was_expected) {
  struct Row {
    std::string key;
    std::string value;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"server.workers", "abc", "configuration key [server] workers: expected an integer in [0, 1024], got 'abc'"},
      {"server.workers", "1025", "configuration key [server] workers: expected an integer in [0, 1024], got '1025'"},
      {"server.workers", "-1", "configuration key [server] workers: expected an integer in [0, 1024], got '-1'"},
      {"server.workers", "", "configuration key [server] workers: expected an integer in [0, 1024], got ''"},
      {"server.workers", "3 ", "configuration key [server] workers: expected an integer in [0, 1024], got '3 '"},
      {"server.site_cache_seconds", "61",
       "configuration key [server] site_cache_seconds: expected an integer in [0, 60], got '61'"},
      {"server.site_cache_seconds", "3600",
       "configuration key [server] site_cache_seconds: expected an integer in [0, 60], got '3600'"},
      {"server.test_mode", "maybe", "configuration key [server] test_mode: expected true or false, got 'maybe'"},
      {"server.front_secret_file", "front-secret",
       "configuration key [server] front_secret_file: expected an absolute path, got 'front-secret'"},
      {"server.front_secret_file", "",
       "configuration key [server] front_secret_file: expected an absolute path, got ''"},
      {"database.ssl_ca", "ca.pem", "configuration key [database] ssl_ca: expected an absolute path, got 'ca.pem'"},
      {"database.merge.ssl_key", "k.pem",
       "configuration key [database.merge] ssl_key: expected an absolute path, got 'k.pem'"},
      {"database.ssl_verify", "sometimes",
       "configuration key [database] ssl_verify: expected true or false, got 'sometimes'"},
      {"server.socket_mode", "0778",
       "configuration key [server] socket_mode: expected an integer in [0, 511], got '0778'"},
      {"server.drain_seconds", "0",
       "configuration key [server] drain_seconds: expected an integer in [1, 3600], got '0'"},
      {"server.max_requests", "99999999999999999999",
       "configuration key [server] max_requests: expected an integer in [0, 1000000000], got '99999999999999999999'"},
      {"database.port", "0", "configuration key [database] port: expected an integer in [1, 65535], got '0'"},
      {"database.merge.port", "x",
       "configuration key [database.merge] port: expected an integer in [1, 65535], got 'x'"},
      {"database.merge.statement_timeout_ms", "0",
       "configuration key [database.merge] statement_timeout_ms: expected an integer in [1, 600000], got '0'"},
      {"auth.argon2_memlimit", "8191",
       "configuration key [auth] argon2_memlimit: expected an integer in [8192, 4294967296], got '8191'"},
      {"auth.tables", "svc_users, bad-name", "configuration key [auth] tables: 'bad-name' is not a plain table name"},
      {"auth.folder_tables", "f`x", "configuration key [auth] folder_tables: 'f`x' is not a plain table name"},
      {"auth.signup_tables", "svc_staff",
       "configuration key [auth] signup_tables: 'svc_staff' is not one of [auth] tables"},
      {"auth.sms_max_wrong_daily", "0",
       "configuration key [auth] sms_max_wrong_daily: expected an integer in [1, 1000], got '0'"},
      {"auth.sms_max_sent_daily", "1001",
       "configuration key [auth] sms_max_sent_daily: expected an integer in [1, 1000], got '1001'"},
      {"auth.reset_page", "svc.example.com/account/reset",
       "configuration key [auth] reset_page: 'svc.example.com/account/reset' is not an http(s) URL without query or "
       "fragment"},
      {"auth.reset_page", "https://svc.example.com/account/reset#x",
       "configuration key [auth] reset_page: 'https://svc.example.com/account/reset#x' is not an http(s) URL without "
       "query or fragment"},
      {"keys.jwt_secret", svc::crypto::base64url_encode(std::string(31, 'k')),
       "configuration key [keys] jwt_secret: expected base64url of 32+ bytes"},
      {"keys.jwt_secret", "not base64url!", "configuration key [keys] jwt_secret: expected base64url of 32+ bytes"},
      {"keys.id_key", kKey33, "configuration key [keys] id_key: expected base64url of 32 bytes"},
      {"keys.jwt_previous", "k0", "configuration key [keys] jwt_previous: expected kid:base64url-secret entries"},
      {"keys.jwt_previous", ":" + kKey32,
       "configuration key [keys] jwt_previous: expected kid:base64url-secret entries"},
      {"keys.jwt_previous", "k0:" + svc::crypto::base64url_encode(std::string(31, 'k')),
       "configuration key [keys] jwt_previous: expected kid:base64url-secret entries"},
      {"smtp.security", "ssl", "configuration key [smtp] security: expected one of plain, starttls, tls, got 'ssl'"},
      {"smtp.auth", "cram-md5", "configuration key [smtp] auth: expected one of none, login, plain, got 'cram-md5'"},
      {"smtp.verify_peer", "maybe", "configuration key [smtp] verify_peer: expected true or false, got 'maybe'"},
      {"smtp.verify_peer", "TRUE", "configuration key [smtp] verify_peer: expected true or false, got 'TRUE'"},
      {"sms.driver", "twilio", "configuration key [sms] driver: expected one of log, http, got 'twilio'"},
      {"sms.driver", "http", "configuration key [sms] url is required when [sms] driver = http"},
      {"push.urgency", "urgent",
       "configuration key [push] urgency: expected one of very-low, low, normal, high, got 'urgent'"},
      {"server.wokers", "2", "unknown configuration key [server] wokers"},
      {"smtp.hostname", "mx", "unknown configuration key [smtp] hostname"},
      {"database.merge.name_", "x", "unknown configuration key [database.merge] name_"},
      {"extra.key", "1", "unknown configuration key [extra] key"},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.key << " = " << row.value) {
      IniValues values = required_values();
      values[row.key] = row.value;
      BOOST_TEST(error_of(values) == row.error);
    }
  }
}

// Settings that parse but are unsafe: refused with one line naming the key.
BOOST_AUTO_TEST_CASE(unsafe_settings_are_refused) {
  struct Row {
    IniValues extra;
    std::string error;
  };
  const std::vector<Row> rows = {
      {{{"auth.tables", " , "}}, "configuration key [auth] tables: at least one table is required"},
      {{{"auth.argon2_memlimit", "19922943"}},
       "configuration key [auth] argon2_memlimit: below 19 MiB (19922944) needs [auth] allow_weak_hashing = true"},
      {{{"auth.argon2_opslimit", "1"}},
       "configuration key [auth] argon2_opslimit: below 2 needs [auth] allow_weak_hashing = true"},
      {{{"smtp.host", "mail.example.com"}, {"smtp.auth", "login"}},
       "configuration key [smtp] auth: SMTP AUTH over security = plain to non-loopback host 'mail.example.com' "
       "would send the password in clear"},
      {{{"smtp.host", "10.0.0.5"}, {"smtp.auth", "plain"}, {"smtp.security", "plain"}},
       "configuration key [smtp] auth: SMTP AUTH over security = plain to non-loopback host '10.0.0.5' "
       "would send the password in clear"},
      {{{"auth.folder_limits_auth", "maybe"}},
       "configuration key [auth] folder_limits_auth: expected one of token_or_site_key, none, got 'maybe'"},
      {{{"push.allowed_ports", "8443, x"}}, "configuration key [push] allowed_ports: expected port numbers, got 'x'"},
      // Issue 22: a switch that turns the SSRF guard off needs a test configuration...
      {{{"push.allow_insecure_endpoints", "true"}},
       "configuration key [push] allow_insecure_endpoints: turns the SSRF guard off; tests only, needs [server] "
       "test_mode = true"},
      {{{"push.allow_insecure_endpoints", "true"}, {"server.test_mode", "false"}},
       "configuration key [push] allow_insecure_endpoints: turns the SSRF guard off; tests only, needs [server] "
       "test_mode = true"},
      {{{"server.front_secret_file", "none"}},
       "configuration key [server] front_secret_file: none lets every local process that can open the socket skip "
       "nginx; tests only, needs [server] test_mode = true"},
      // ... and a test configuration listens on this machine only.
      {{{"server.test_mode", "true"}, {"server.socket", "10.1.0.5:9000"}, {"server.allowed_peers", "10.1.0.2"}},
       "configuration key [server] test_mode: only for a test machine, but FastCGI socket '10.1.0.5:9000' is neither "
       "a unix socket nor a loopback address"},
      {{{"server.test_mode", "true"}, {"server.outbound_socket", "0.0.0.0:9002"}},
       "configuration key [server] test_mode: only for a test machine, but FastCGI socket '0.0.0.0:9002' is neither "
       "a unix socket nor a loopback address"},
      {{{"server.test_mode", "true"}, {"server.hashing_socket", "[::]:9001"}},
       "configuration key [server] test_mode: only for a test machine, but FastCGI socket '[::]:9001' is neither a "
       "unix socket nor a loopback address"},
      // More workers than the outbound cap can count (twice, during a reload).
      {{{"server.workers", "129"}},
       "configuration key [server] workers: 129 workers in all pools, at most 128 (every worker needs a slot of the "
       "outbound cap, twice during a reload)"},
      {{{"server.workers", "100"}, {"server.outbound_socket", "/run/svc/o.sock"}, {"server.outbound_workers", "29"}},
       "configuration key [server] workers: 129 workers in all pools, at most 128 (every worker needs a slot of the "
       "outbound cap, twice during a reload)"},
      {{{"server.workers", "64"},
        {"server.hashing_socket", "/run/svc/h.sock"},
        {"server.hashing_workers", "64"},
        {"server.outbound_socket", "/run/svc/o.sock"}},
       "configuration key [server] workers: 144 workers in all pools, at most 128 (every worker needs a slot of the "
       "outbound cap, twice during a reload)"},
      // Database TLS: a client certificate without its key, or without a CA.
      {{{"database.ssl_ca", "/etc/svc/ca.pem"}, {"database.ssl_cert", "/etc/svc/client.pem"}},
       "configuration key [database] ssl_key: ssl_cert and ssl_key go together (a client certificate and its key)"},
      {{{"database.ssl_cert", "/etc/svc/client.pem"}, {"database.ssl_key", "/etc/svc/client.key"}},
       "configuration key [database] ssl_ca: required with ssl_cert or ssl_verify (TLS to the database is on exactly "
       "when ssl_ca is set)"},
      {{{"database.merge.ssl_verify", "false"}},
       "configuration key [database.merge] ssl_ca: required with ssl_cert or ssl_verify (TLS to the database is on "
       "exactly when ssl_ca is set)"},
  };
  for (const Row& row : rows) {
    IniValues values = required_values();
    for (const auto& [k, v] : row.extra) values[k] = v;
    BOOST_TEST(error_of(values) == row.error);
  }
}

BOOST_AUTO_TEST_CASE(safe_variants_of_refused_settings_pass) {
  const std::vector<IniValues> ok = {
      {{"auth.argon2_memlimit", "8192"}, {"auth.argon2_opslimit", "1"}, {"auth.allow_weak_hashing", "true"}},
      {{"smtp.host", "127.0.0.1"}, {"smtp.auth", "login"}},
      {{"smtp.host", "localhost"}, {"smtp.auth", "plain"}},
      {{"smtp.host", "::1"}, {"smtp.auth", "plain"}},
      {{"smtp.host", "mail.example.com"}, {"smtp.auth", "login"}, {"smtp.security", "starttls"}},
      {{"smtp.host", "mail.example.com"}, {"smtp.auth", "none"}},
  };
  for (const auto& extra : ok) {
    IniValues values = required_values();
    for (const auto& [k, v] : extra) values[k] = v;
    BOOST_TEST(error_of(values) == "(no error)");
  }
  // Test configurations on local sockets, and the worker count at the limit.
  const std::vector<IniValues> test_configs = {
      {{"server.test_mode", "true"}, {"push.allow_insecure_endpoints", "true"}},
      {{"server.test_mode", "true"}, {"server.front_secret_file", "none"}},
      {{"server.test_mode", "true"},
       {"server.socket", "127.0.0.1:9000"},
       {"server.hashing_socket", "[::1]:9001"},
       {"server.outbound_socket", "/run/o.sock"},
       {"push.allow_insecure_endpoints", "on"}},
      {{"server.workers", "100"}, {"server.outbound_workers", "1000"}},  // no outbound pool: not counted
      {{"server.workers", "112"}, {"server.outbound_socket", "/run/svc/o.sock"}},
      {{"server.site_cache_seconds", "60"}},
  };
  for (const auto& extra : test_configs) {
    IniValues values = required_values();
    for (const auto& [k, v] : extra) values[k] = v;
    BOOST_TEST(error_of(values) == "(no error)");
  }
  IniValues ports = required_values();
  ports["push.allowed_ports"] = "8443, 9000";
  BOOST_TEST((parse_config(ports, "p.conf").push.allowed_ports == std::vector<int>{8443, 9000}));
  BOOST_TEST(parse_config(required_values(), "d.conf").auth.folder_limits_auth == "token_or_site_key");
}

BOOST_AUTO_TEST_CASE(database_tls_keys) {
  IniValues values = required_values();
  values["database.ssl_ca"] = "/etc/svc/db-ca.pem";
  values["database.ssl_cert"] = "/etc/svc/db-client.pem";
  values["database.ssl_key"] = "/etc/svc/db-client.key";
  values["database.merge.user"] = "svc_merge";
  values["database.merge.ssl_ca"] = "/etc/svc/db-ca.pem";
  values["database.merge.ssl_verify"] = "false";
  const Config c = parse_config(values, "tls.conf");
  BOOST_TEST(c.database.tls());
  BOOST_TEST(c.database.ssl_ca == "/etc/svc/db-ca.pem");
  BOOST_TEST(c.database.ssl_cert == "/etc/svc/db-client.pem");
  BOOST_TEST(c.database.ssl_key == "/etc/svc/db-client.key");
  BOOST_TEST(c.database.ssl_verify);
  BOOST_TEST(c.merge.tls());
  BOOST_TEST(c.merge.ssl_cert.empty());
  BOOST_TEST(!c.merge.ssl_verify);
}

BOOST_AUTO_TEST_CASE(loopback_hosts_and_url_hosts) {
  BOOST_TEST(svc::config::is_loopback_host("127.0.0.1"));
  BOOST_TEST(svc::config::is_loopback_host("127.9.9.9"));
  BOOST_TEST(svc::config::is_loopback_host("[::1]"));
  BOOST_TEST(svc::config::is_loopback_host("localhost"));
  BOOST_TEST(!svc::config::is_loopback_host("128.0.0.1"));
  BOOST_TEST(!svc::config::is_loopback_host("localhost.example.com"));
  BOOST_TEST(svc::config::url_host("http://a.example:8080/reset?x=1") == "a.example");
  BOOST_TEST(svc::config::url_host("http://user@127.0.0.1/reset") == "127.0.0.1");
  BOOST_TEST(svc::config::url_host("http://[::1]:80/") == "[::1]");
  BOOST_TEST(svc::config::url_host("/relative") == "");
}

BOOST_AUTO_TEST_CASE(load_config_names_an_unreadable_file) {
  try {
    svc::config::load_config("/nonexistent/svc.conf");
    BOOST_FAIL("no error");
  } catch (const ConfigError& e) {
    BOOST_TEST(std::string(e.what()) ==
               "cannot read configuration file /nonexistent/svc.conf (name another with --config FILE or "
               "the SVC_CONFIG environment variable)");
  }
}

// Issue 11: FastCGI over TCP binds what is written and accepts the peers
// listed; a database may be a list of nodes.
BOOST_AUTO_TEST_CASE(cluster_keys_are_parsed) {
  IniValues values = required_values();
  values["server.socket"] = "10.1.0.5:9000";
  values["server.hashing_socket"] = "[::1]:9001";
  values["server.allowed_peers"] = "10.1.0.0/24, 127.0.0.1/32 , ::1/128";
  values["database.hosts"] = "10.2.0.11:3306, db2, [fd00::13]:3307";
  values["database.port"] = "3308";
  values["database.sync_wait"] = "reads";
  values["database.transaction_attempts"] = "6";
  const Config c = parse_config(values, "svc.conf");
  BOOST_TEST(c.server.socket == "10.1.0.5:9000");
  BOOST_TEST(c.server.hashing_socket == "[::1]:9001");
  BOOST_TEST_REQUIRE(c.server.allowed_peers.size() == 3u);
  BOOST_TEST(c.server.allowed_peers[0].text == "10.1.0.0/24");
  BOOST_TEST(c.server.allowed_peers[2].text == "::1/128");
  BOOST_TEST_REQUIRE(c.database.hosts.size() == 3u);
  BOOST_TEST(c.database.hosts[0].host == "10.2.0.11");
  BOOST_TEST(c.database.hosts[1].host == "db2");
  BOOST_TEST(c.database.hosts[1].port == 3308);  // [database] port is the default
  BOOST_TEST(c.database.hosts[2].host == "fd00::13");
  BOOST_TEST(c.database.hosts[2].port == 3307);
  BOOST_TEST(c.database.nodes().size() == 3u);
  BOOST_TEST((c.database.sync_wait == svc::config::SyncWait::kReads));
  BOOST_TEST(c.database.transaction_attempts == 6);

  const Config d = parse_config(required_values(), "min.conf");
  BOOST_TEST_REQUIRE(d.server.allowed_peers.size() == 2u);  // loopback only
  BOOST_TEST(d.server.allowed_peers[0].text == "127.0.0.0/8");
  BOOST_TEST(d.server.allowed_peers[1].text == "::1/128");
  BOOST_TEST(d.database.hosts.empty());
  BOOST_TEST_REQUIRE(d.database.nodes().size() == 1u);
  BOOST_TEST(d.database.nodes()[0].host == "localhost");
  BOOST_TEST((d.database.sync_wait == svc::config::SyncWait::kReadsWrites));
  BOOST_TEST(d.database.transaction_attempts == 4);
}

BOOST_AUTO_TEST_CASE(cluster_keys_refuse_what_they_cannot_mean) {
  struct Row {
    std::string key;
    std::string value;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"server.socket", ":9000",
       "configuration key [server] socket: ':9000' would listen on every interface; write the address to bind (e.g. "
       "10.1.0.5:9000), or 0.0.0.0:9000 / [::]:9000 if every interface is meant"},
      {"server.hashing_socket", ":9001",
       "configuration key [server] hashing_socket: ':9001' would listen on every interface; write the address to bind "
       "(e.g. 10.1.0.5:9001), or 0.0.0.0:9001 / [::]:9001 if every interface is meant"},
      {"server.socket", "localhost:9000",
       "configuration key [server] socket: expected an absolute unix socket path, IPv4:port or [IPv6]:port, got "
       "'localhost:9000'"},
      {"server.socket", "relative.sock",
       "configuration key [server] socket: expected an absolute unix socket path, IPv4:port or [IPv6]:port, got "
       "'relative.sock'"},
      {"server.allowed_peers", "10.1.0.0/24, 10.2.0.1/16",
       "configuration key [server] allowed_peers: '10.2.0.1/16' is not an address or CIDR block (e.g. 10.1.0.0/24, "
       "::1/128) with the host bits clear"},
      {"server.allowed_peers", "app-host",
       "configuration key [server] allowed_peers: 'app-host' is not an address or CIDR block (e.g. 10.1.0.0/24, "
       "::1/128) with the host bits clear"},
      {"server.allowed_peers", " , ",
       "configuration key [server] allowed_peers: empty; leave the key out for loopback only"},
      {"database.hosts", "db1:3306, fd00::1",
       "configuration key [database] hosts: 'fd00::1' is not host, host:port or [IPv6]:port"},
      {"database.sync_wait", "always",
       "configuration key [database] sync_wait: expected one of reads_writes, reads, off, got 'always'"},
      {"database.transaction_attempts", "0",
       "configuration key [database] transaction_attempts: expected an integer in [1, 20], got '0'"},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.key << " = " << row.value) {
      IniValues values = required_values();
      values[row.key] = row.value;
      BOOST_TEST(error_of(values) == row.error);
    }
  }
  IniValues both = required_values();
  both["database.socket"] = "/run/mysqld/mysqld.sock";
  both["database.hosts"] = "db1, db2";
  BOOST_TEST(error_of(both) == "configuration key [database] hosts: set either socket or hosts, not both");
}

BOOST_AUTO_TEST_CASE(deliverability_keys_defaults_and_refusals) {
  const Config d = parse_config(required_values(), "svc.conf");
  BOOST_TEST(d.smtp.bounce_address.empty());
  BOOST_TEST(d.smtp.unsubscribe_url.empty());
  BOOST_TEST(d.smtp.max_bounce_rate == 5);
  BOOST_TEST(d.smtp.bounce_rate_min_mails == 100);
  BOOST_TEST(d.keys.mail_key.empty());

  IniValues good = required_values();
  good["keys.mail_key"] = kKey32;
  good["smtp.bounce_address"] = "bounce@bounces.example.com";
  good["smtp.unsubscribe_url"] = "https://svc.example.com/mail/unsubscribe";
  const Config c = parse_config(good, "svc.conf");
  BOOST_TEST(c.keys.mail_key == std::string(32, 'k'));
  BOOST_TEST(c.smtp.bounce_address == "bounce@bounces.example.com");
  good["smtp.unsubscribe_url"] = "http://127.0.0.1:8080/mail/unsubscribe";  // the local stack
  BOOST_TEST(parse_config(good, "svc.conf").smtp.unsubscribe_url == "http://127.0.0.1:8080/mail/unsubscribe");

  IniValues keyless = good;
  keyless.erase("keys.mail_key");
  BOOST_TEST(error_of(keyless).find("missing required configuration key [keys] mail_key") == 0u);
  struct Row {
    std::string key;
    std::string value;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"smtp.bounce_address", "bounce+x@b.example",
       "configuration key [smtp] bounce_address: 'bounce+x@b.example' is not a plain address local@domain (without "
       "'+')"},
      {"smtp.bounce_address", "bounces.example",
       "configuration key [smtp] bounce_address: 'bounces.example' is not a plain address local@domain (without '+')"},
      {"smtp.unsubscribe_url", "http://svc.example.com/mail/unsubscribe",
       "configuration key [smtp] unsubscribe_url: 'http://svc.example.com/mail/unsubscribe' is not an https URL "
       "without query or fragment (http only to loopback)"},
      {"smtp.unsubscribe_url", "https://svc.example.com/u?x=1",
       "configuration key [smtp] unsubscribe_url: 'https://svc.example.com/u?x=1' is not an https URL without query "
       "or fragment (http only to loopback)"},
      {"smtp.max_bounce_rate", "101",
       "configuration key [smtp] max_bounce_rate: expected an integer in [0, 100], got '101'"},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.key << " = " << row.value) {
      IniValues v = good;
      v[row.key] = row.value;
      BOOST_TEST(error_of(v) == row.error);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
