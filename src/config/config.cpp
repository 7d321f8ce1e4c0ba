#include "config/config.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "crypto/encoding.hpp"

namespace svc::config {
namespace {

// Reads typed values from the INI map and remembers which keys it consumed, so
// anything left over is an unknown key.
class Reader {
 public:
  explicit Reader(const IniValues& values) : values_(values) {}

  const std::string* raw(const std::string& key) {
    seen_.insert(key);
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }
  void str(const std::string& key, std::string& out) {
    if (auto v = raw(key)) out = *v;
  }
  void required(const std::string& key, std::string& out) {
    auto v = raw(key);
    if (!v || v->empty()) throw ConfigError("missing required configuration key " + label(key));
    out = *v;
  }
  template <class Int>
  void integer(const std::string& key, Int& out, long long min, long long max) {
    auto v = raw(key);
    if (!v) return;
    errno = 0;
    char* end = nullptr;
    long long n = std::strtoll(v->c_str(), &end, 0);
    if (v->empty() || *end != '\0' || errno != 0 || n < min || n > max) {
      throw ConfigError("configuration key " + label(key) + ": expected an integer in [" + std::to_string(min) + ", " +
                        std::to_string(max) + "], got '" + *v + "'");
    }
    out = static_cast<Int>(n);
  }
  void boolean(const std::string& key, bool& out) {
    auto v = raw(key);
    if (!v) return;
    if (*v == "true" || *v == "yes" || *v == "on" || *v == "1")
      out = true;
    else if (*v == "false" || *v == "no" || *v == "off" || *v == "0")
      out = false;
    else
      throw ConfigError("configuration key " + label(key) + ": expected true or false, got '" + *v + "'");
  }
  void list(const std::string& key, std::vector<std::string>& out) {
    auto v = raw(key);
    if (!v) return;
    out.clear();
    size_t start = 0;
    while (start <= v->size()) {
      size_t comma = v->find(',', start);
      if (comma == std::string::npos) comma = v->size();
      std::string item = v->substr(start, comma - start);
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      if (!item.empty()) out.push_back(item);
      start = comma + 1;
    }
  }
  void one_of(const std::string& key, std::string& out, std::initializer_list<const char*> allowed) {
    str(key, out);
    for (const char* a : allowed) {
      if (out == a) return;
    }
    std::string names;
    for (const char* a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
    throw ConfigError("configuration key " + label(key) + ": expected one of " + names + ", got '" + out + "'");
  }
  // A base64url-encoded secret of at least min_bytes bytes.
  std::string secret(const std::string& key, size_t min_bytes, size_t max_bytes, bool needed) {
    auto v = raw(key);
    if (!v || v->empty()) {
      if (needed)
        throw ConfigError("missing required configuration key " + label(key) + " (svc-admin keygen prints one)");
      return "";
    }
    auto bytes = crypto::base64url_decode(*v);
    if (!bytes || bytes->size() < min_bytes || bytes->size() > max_bytes) {
      throw ConfigError("configuration key " + label(key) + ": expected base64url of " + std::to_string(min_bytes) +
                        (min_bytes == max_bytes ? "" : "+") + " bytes");
    }
    return *bytes;
  }
  void reject_unknown() const {
    for (const auto& [key, value] : values_) {
      if (!seen_.count(key)) throw ConfigError("unknown configuration key " + label(key));
    }
  }
  static std::string label(const std::string& key) {
    size_t dot = key.rfind('.');
    return "[" + key.substr(0, dot) + "] " + key.substr(dot + 1);
  }

 private:
  const IniValues& values_;
  std::set<std::string> seen_;
};

// [database] hosts: "host:port, host:port, ..." (a port left out is `port`).
void read_db_hosts(Reader& r, const std::string& s, DbSettings& db) {
  std::vector<std::string> items;
  r.list(s + ".hosts", items);
  for (const auto& item : items) {
    auto node = parse_host_port(item, db.port);
    if (!node) {
      throw ConfigError("configuration key " + Reader::label(s + ".hosts") + ": '" + item +
                        "' is not host, host:port or [IPv6]:port");
    }
    db.hosts.push_back(*node);
  }
  if (!db.hosts.empty() && !db.socket.empty()) {
    throw ConfigError("configuration key " + Reader::label(s + ".hosts") + ": set either socket or hosts, not both");
  }
}

// [database] ssl_*: absolute paths; a client certificate needs its key and
// a CA to check the server with (TLS is on exactly when ssl_ca is set).
void read_db_tls(Reader& r, const std::string& s, DbSettings& db) {
  const std::pair<const char*, std::string*> paths[] = {
      {".ssl_ca", &db.ssl_ca}, {".ssl_cert", &db.ssl_cert}, {".ssl_key", &db.ssl_key}};
  for (const auto& [key, out] : paths) {
    r.str(s + key, *out);
    if (!out->empty() && out->front() != '/') {
      throw ConfigError("configuration key " + Reader::label(s + key) + ": expected an absolute path, got '" + *out +
                        "'");
    }
  }
  r.boolean(s + ".ssl_verify", db.ssl_verify);
  if (db.ssl_cert.empty() != db.ssl_key.empty()) {
    throw ConfigError("configuration key " + Reader::label(s + (db.ssl_cert.empty() ? ".ssl_cert" : ".ssl_key")) +
                      ": ssl_cert and ssl_key go together (a client certificate and its key)");
  }
  if (!db.tls() && (!db.ssl_cert.empty() || !db.ssl_verify)) {
    throw ConfigError("configuration key " + Reader::label(s + ".ssl_ca") +
                      ": required with ssl_cert or ssl_verify (TLS to the database is on exactly when ssl_ca is set)");
  }
}

void read_db(Reader& r, const std::string& s, DbSettings& db) {
  r.str(s + ".host", db.host);
  r.integer(s + ".port", db.port, 1, 65535);
  r.str(s + ".socket", db.socket);
  r.str(s + ".user", db.user);
  r.str(s + ".password", db.password);
  r.str(s + ".name", db.name);
  r.integer(s + ".connect_timeout", db.connect_timeout, 1, 300);
  read_db_hosts(r, s, db);
  std::string sync_wait = "reads_writes";
  r.one_of(s + ".sync_wait", sync_wait, {"reads_writes", "reads", "off"});
  db.sync_wait = sync_wait == "off" ? SyncWait::kOff : sync_wait == "reads" ? SyncWait::kReads : SyncWait::kReadsWrites;
  r.integer(s + ".transaction_attempts", db.transaction_attempts, 1, 20);
  read_db_tls(r, s, db);
}

void check_identifier(const std::string& key, const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw ConfigError("configuration key " + key + ": '" + name + "' is not a plain table name");
}

// One reader per section. parse_config calls them in file-documentation
// order, and that order decides which of several bad keys is reported.

// [server] socket / hashing_socket: an absolute unix path or a numeric TCP
// address. Binding every interface must be written out (0.0.0.0:port,
// [::]:port): a bare ":port" is refused, so no one opens the FastCGI port
// to the world by leaving the host out.
void check_socket_address(const std::string& key, const std::string& value) {
  if (!value.empty() && value.front() == '/') return;
  if (!value.empty() && value.front() == ':') {
    throw ConfigError("configuration key " + key + ": '" + value +
                      "' would listen on every interface; write the address to bind (e.g. 10.1.0.5" + value +
                      "), or 0.0.0.0" + value + " / [::]" + value + " if every interface is meant");
  }
  if (!parse_listen_address(value)) {
    throw ConfigError("configuration key " + key +
                      ": expected an absolute unix socket path, IPv4:port or [IPv6]:port, got '" + value + "'");
  }
}

// A unix socket path, a loopback TCP address, or "" (no such pool).
bool is_local_socket(const std::string& value) {
  if (value.empty() || value.front() == '/') return true;
  auto address = parse_listen_address(value);
  return address && is_loopback_host(address->host);
}

void read_allowed_peers(Reader& r, ServerSettings& server) {
  std::vector<std::string> items;
  r.list("server.allowed_peers", items);
  if (!r.raw("server.allowed_peers")) return;
  server.allowed_peers.clear();
  for (const auto& item : items) {
    auto block = parse_cidr(item);
    if (!block) {
      throw ConfigError("configuration key [server] allowed_peers: '" + item +
                        "' is not an address or CIDR block (e.g. 10.1.0.0/24, ::1/128) with the host bits clear");
    }
    server.allowed_peers.push_back(*block);
  }
  if (server.allowed_peers.empty()) {
    throw ConfigError("configuration key [server] allowed_peers: empty; leave the key out for loopback only");
  }
}

void read_server(Reader& r, ServerSettings& server) {
  r.str("server.socket", server.socket);
  check_socket_address("[server] socket", server.socket);
  r.integer("server.socket_mode", server.socket_mode, 0, 0777);
  r.integer("server.backlog", server.backlog, 1, 65535);
  r.integer("server.workers", server.workers, 0, 1024);
  r.integer("server.max_requests", server.max_requests, 0, 1000000000);
  r.integer("server.drain_seconds", server.drain_seconds, 1, 3600);
  r.str("server.hashing_socket", server.hashing_socket);
  if (!server.hashing_socket.empty()) check_socket_address("[server] hashing_socket", server.hashing_socket);
  r.integer("server.hashing_workers", server.hashing_workers, 0, 1024);
  // At most a minute: it is how long a revoked or deactivated site key
  // still works on a worker that read the row before the change.
  r.integer("server.site_cache_seconds", server.site_cache_seconds, 0, 60);
  r.str("server.outbound_socket", server.outbound_socket);
  if (!server.outbound_socket.empty()) check_socket_address("[server] outbound_socket", server.outbound_socket);
  r.integer("server.outbound_workers", server.outbound_workers, 1, 1024);
  read_allowed_peers(r, server);
  r.integer("server.template_cache_seconds", server.template_cache_seconds, 0, 3600);
  r.boolean("server.test_mode", server.test_mode);
  r.str("server.front_secret_file", server.front_secret_file);
  if (server.front_secret_file == "none") {
    if (!server.test_mode) {
      throw ConfigError(
          "configuration key [server] front_secret_file: none lets every local process that can open the socket "
          "skip nginx; tests only, needs [server] test_mode = true");
    }
    server.front_secret_file.clear();
  } else if (server.front_secret_file.empty() || server.front_secret_file.front() != '/') {
    throw ConfigError("configuration key [server] front_secret_file: expected an absolute path, got '" +
                      server.front_secret_file + "'");
  }
  if (server.test_mode) {
    for (const std::string* socket : {&server.socket, &server.hashing_socket, &server.outbound_socket}) {
      if (!is_local_socket(*socket)) {
        throw ConfigError("configuration key [server] test_mode: only for a test machine, but FastCGI socket '" +
                          *socket + "' is neither a unix socket nor a loopback address");
      }
    }
  }
  // Explicit counts of the pools this file configures; 0 (= one per CPU)
  // and pools whose socket systemd passes are checked by the master, which
  // knows both (fcgi/master.cpp).
  const int total = server.workers + (server.hashing_socket.empty() ? 0 : server.hashing_workers) +
                    (server.outbound_socket.empty() ? 0 : server.outbound_workers);
  if (total > kMaxWorkers) {
    throw ConfigError("configuration key [server] workers: " + std::to_string(total) +
                      " workers in all pools, at most " + std::to_string(kMaxWorkers) +
                      " (every worker needs a slot of the outbound cap, twice during a reload)");
  }
}

// [database] (user required) and the optional [database.merge] account.
void read_databases(Reader& r, DbSettings& database, DbSettings& merge) {
  read_db(r, "database", database);
  if (!database.configured()) r.required("database.user", database.user);
  read_db(r, "database.merge", merge);
  r.integer("database.merge.statement_timeout_ms", merge.statement_timeout_ms, 1, 600000);
}

// One [auth] key of a CodeRules: its name, the field it sets, its range.
struct CodeRuleKey {
  const char* key;
  int CodeRules::*field;
  long long min, max;
};

// The keys of the SMS and the e-mail code rules differ in name, range and
// the order they are read in (which decides which of several bad keys is
// reported), so each kind lists its own.
void read_code_rules(Reader& r, CodeRules& rules, std::initializer_list<CodeRuleKey> keys) {
  for (const auto& k : keys) r.integer(k.key, rules.*k.field, k.min, k.max);
}

void read_auth(Reader& r, AuthSettings& auth) {
  r.list("auth.tables", auth.tables);
  r.list("auth.folder_tables", auth.folder_tables);
  for (const auto& t : auth.tables) check_identifier("[auth] tables", t);
  for (const auto& t : auth.folder_tables) check_identifier("[auth] folder_tables", t);
  r.integer("auth.access_ttl", auth.access_ttl, 60, 86400 * 7);
  r.integer("auth.refresh_ttl", auth.refresh_ttl, 60, 86400LL * 365);
  r.integer("auth.reset_ttl", auth.reset_ttl, 60, 86400 * 7);
  r.str("auth.reset_page", auth.reset_page);
  const std::string& page = auth.reset_page;
  if (!page.empty() && ((page.rfind("https://", 0) != 0 && page.rfind("http://", 0) != 0) ||
                        page.find_first_of("#? \r\n\t\"<>") != std::string::npos)) {
    throw ConfigError("configuration key [auth] reset_page: '" + page +
                      "' is not an http(s) URL without query or fragment");
  }
  r.str("auth.verify_page", auth.verify_page);
  if (auth.verify_page.empty() && page.size() > 6 && page.compare(page.size() - 6, 6, "/reset") == 0) {
    auth.verify_page = page.substr(0, page.size() - 5) + "verify";
  }
  const std::string& verify = auth.verify_page;
  if (!verify.empty() && ((verify.rfind("https://", 0) != 0 && verify.rfind("http://", 0) != 0) ||
                          verify.find_first_of("#? \r\n\t\"<>") != std::string::npos)) {
    throw ConfigError("configuration key [auth] verify_page: '" + verify +
                      "' is not an http(s) URL without query or fragment");
  }
  r.integer("auth.verify_ttl", auth.verify_ttl, 600, 86400 * 30);
  read_code_rules(r, auth.email_code,
                  {{"auth.email_code_ttl", &CodeRules::ttl, 60, 3600},
                   {"auth.email_code_resend_seconds", &CodeRules::resend_seconds, 0, 3600},
                   {"auth.email_code_max_attempts", &CodeRules::max_attempts, 1, 20},
                   {"auth.email_code_max_sent_daily", &CodeRules::max_sent_daily, 1, 1000},
                   {"auth.email_code_max_wrong_daily", &CodeRules::max_wrong_daily, 1, 1000}});
  r.integer("auth.argon2_opslimit", auth.argon2_opslimit, 1, 100);
  r.integer("auth.argon2_memlimit", auth.argon2_memlimit, 8192, 4LL * 1024 * 1024 * 1024);
  r.integer("auth.login_max_failures", auth.login_max_failures, 1, 1000);
  r.integer("auth.login_window", auth.login_window, 1, 86400);
  r.integer("auth.mfa_lock_after", auth.mfa_lock.lock_after, 1, 1000);
  r.integer("auth.mfa_lock_seconds", auth.mfa_lock.lock_seconds, 1, 86400);
  r.integer("auth.mfa_max_wrong_daily", auth.mfa_lock.max_wrong_daily, 1, 1000);
  read_code_rules(r, auth.sms,
                  {{"auth.sms_code_ttl", &CodeRules::ttl, 30, 86400},
                   {"auth.sms_resend_seconds", &CodeRules::resend_seconds, 0, 86400},
                   {"auth.sms_max_attempts", &CodeRules::max_attempts, 1, 100},
                   {"auth.sms_max_wrong_daily", &CodeRules::max_wrong_daily, 1, 1000},
                   {"auth.sms_max_sent_daily", &CodeRules::max_sent_daily, 1, 1000}});
  r.boolean("auth.allow_weak_hashing", auth.allow_weak_hashing);
  r.one_of("auth.folder_limits_auth", auth.folder_limits_auth, {"token_or_site_key", "none"});
  r.integer("auth.user_cache_seconds", auth.user_cache_seconds, 0, 1);
  // tables.front() is every request's default table: an empty list would
  // leave no table at all.
  if (auth.tables.empty()) throw ConfigError("configuration key [auth] tables: at least one table is required");
  r.list("auth.signup_tables", auth.signup_tables);
  if (auth.signup_tables.empty()) auth.signup_tables = {auth.tables.front()};
  for (const auto& t : auth.signup_tables) {
    if (std::find(auth.tables.begin(), auth.tables.end(), t) == auth.tables.end()) {
      throw ConfigError("configuration key [auth] signup_tables: '" + t + "' is not one of [auth] tables");
    }
  }
  if (!auth.allow_weak_hashing && auth.argon2_memlimit < 19ULL * 1024 * 1024) {
    throw ConfigError(
        "configuration key [auth] argon2_memlimit: below 19 MiB (19922944) needs [auth] allow_weak_hashing = true");
  }
  if (!auth.allow_weak_hashing && auth.argon2_opslimit < 2) {
    throw ConfigError("configuration key [auth] argon2_opslimit: below 2 needs [auth] allow_weak_hashing = true");
  }
}

// [keys] jwt_previous: "kid:base64url-secret" entries, comma-separated.
std::vector<crypto::JwtKey> read_previous_jwt_keys(Reader& r) {
  std::vector<std::string> items;
  r.list("keys.jwt_previous", items);
  std::vector<crypto::JwtKey> keys;
  for (const auto& item : items) {
    size_t colon = item.find(':');
    auto secret = colon == std::string::npos ? std::nullopt : crypto::base64url_decode(item.substr(colon + 1));
    if (!secret || secret->size() < 32 || colon == 0) {
      throw ConfigError("configuration key [keys] jwt_previous: expected kid:base64url-secret entries");
    }
    keys.push_back({item.substr(0, colon), *secret});
  }
  return keys;
}

void read_keys(Reader& r, KeySettings& keys) {
  r.required("keys.jwt_kid", keys.jwt.current.kid);
  keys.jwt.current.secret = r.secret("keys.jwt_secret", 32, 256, true);
  keys.jwt.previous = read_previous_jwt_keys(r);
  keys.id_key = r.secret("keys.id_key", 32, 32, true);
  keys.sms_key = r.secret("keys.sms_key", 32, 256, true);
  keys.reset_key = r.secret("keys.reset_key", 32, 256, true);
  r.str("keys.legacy_password_key", keys.legacy_password_key);
  keys.signing_kek = r.secret("keys.signing_kek", 32, 32, false);
  keys.mfa_key = r.secret("keys.mfa_key", 32, 32, false);
  keys.mail_key = r.secret("keys.mail_key", 32, 32, false);
}

// [tokens]; after [keys]: the asymmetric algorithms need [keys] signing_kek.
void read_tokens(Reader& r, TokenSettings& tokens, const KeySettings& keys) {
  r.str("tokens.issuer", tokens.issuer);
  const std::string& iss = tokens.issuer;
  if (iss.rfind("https://", 0) != 0 || iss.size() <= 8 || iss.find_first_of("#? \r\n\t\"<>") != std::string::npos) {
    throw ConfigError("configuration key [tokens] issuer: '" + iss + "' is not an https URL without query or fragment");
  }
  r.one_of("tokens.access_alg", tokens.access_alg, {"ES256", "EdDSA", "HS256"});
  r.integer("tokens.key_cache_seconds", tokens.key_cache_seconds, 0, 60);
  if (!tokens.legacy_hs256() && keys.signing_kek.empty()) {
    throw ConfigError(
        "missing required configuration key [keys] signing_kek (svc-admin keygen prints one; it seals the "
        "access-token signing keys)");
  }
}

// [smtp] bounce_address, unsubscribe_url and the bounce-rate guard
// (docs/configuration.md); [keys] mail_key is checked in load_config.
void read_deliverability(Reader& r, SmtpSettings& smtp) {
  r.str("smtp.bounce_address", smtp.bounce_address);
  const std::string& bounce = smtp.bounce_address;
  const auto at = bounce.find('@');
  if (!bounce.empty() &&
      (at == 0 || at == std::string::npos || at + 1 == bounce.size() ||
       bounce.find_first_of("+<>\"(), \t\r\n") != std::string::npos || bounce.find('@', at + 1) != std::string::npos)) {
    throw ConfigError("configuration key [smtp] bounce_address: '" + bounce +
                      "' is not a plain address local@domain (without '+')");
  }
  r.str("smtp.unsubscribe_url", smtp.unsubscribe_url);
  const std::string& url = smtp.unsubscribe_url;
  if (!url.empty()) {
    const bool https = url.rfind("https://", 0) == 0 && url.size() > 8;
    const bool http = url.rfind("http://", 0) == 0 && url.size() > 7;
    if ((!https && !(http && is_loopback_host(url_host(url)))) ||
        url.find_first_of("#? \r\n\t\"<>") != std::string::npos) {
      throw ConfigError("configuration key [smtp] unsubscribe_url: '" + url +
                        "' is not an https URL without query or fragment (http only to loopback)");
    }
  }
  r.str("smtp.from", smtp.from);
  if (smtp.from.find('@') == std::string::npos && !smtp.from.empty()) {
    throw ConfigError("configuration key [smtp] from: '" + smtp.from + "' names no address");
  }
  r.integer("smtp.max_bounce_rate", smtp.max_bounce_rate, 0, 100);
  r.integer("smtp.bounce_rate_min_mails", smtp.bounce_rate_min_mails, 1, 1000000);
}

void read_smtp(Reader& r, SmtpSettings& smtp) {
  r.str("smtp.host", smtp.host);
  r.integer("smtp.port", smtp.port, 1, 65535);
  r.one_of("smtp.security", smtp.security, {"plain", "starttls", "tls"});
  r.one_of("smtp.auth", smtp.auth, {"none", "login", "plain"});
  r.str("smtp.username", smtp.username);
  r.str("smtp.password", smtp.password);
  r.integer("smtp.timeout", smtp.timeout, 1, 600);
  r.boolean("smtp.verify_peer", smtp.verify_peer);
  r.str("smtp.helo_name", smtp.helo_name);
  r.integer("smtp.batch", smtp.batch, 1, 10000);
  r.integer("smtp.lease_seconds", smtp.lease_seconds, 10, 86400);
  r.integer("smtp.max_attempts", smtp.max_attempts, 1, 100);
  r.integer("smtp.backoff_seconds", smtp.backoff_seconds, 1, 86400);
  r.integer("smtp.sessions", smtp.sessions, 1, 64);
  read_deliverability(r, smtp);
  // A password over plain text may only travel to this machine.
  if (smtp.auth != "none" && smtp.security == "plain" && !is_loopback_host(smtp.host)) {
    throw ConfigError("configuration key [smtp] auth: SMTP AUTH over security = plain to non-loopback host '" +
                      smtp.host + "' would send the password in clear");
  }
}

void read_sms(Reader& r, SmsSettings& sms) {
  r.one_of("sms.driver", sms.driver, {"log", "http"});
  r.str("sms.url", sms.url);
  r.one_of("sms.method", sms.method, {"POST", "PUT", "GET"});
  r.str("sms.auth_header", sms.auth_header);
  r.str("sms.content_type", sms.content_type);
  r.str("sms.body_template", sms.body_template);
  r.str("sms.message", sms.message);
  r.integer("sms.timeout_ms", sms.timeout_ms, 100, 120000);
  r.integer("sms.connect_timeout_ms", sms.connect_timeout_ms, 100, 120000);
  if (sms.driver == "http" && sms.url.empty()) {
    throw ConfigError("configuration key [sms] url is required when [sms] driver = http");
  }
}

// REQUIRES: [server] was read (test_mode).
void read_push(Reader& r, PushSettings& push, bool test_mode) {
  r.boolean("push.allow_insecure_endpoints", push.allow_insecure_endpoints);
  // It switches the whole SSRF guard off: a push could then reach the
  // database, the metadata service or any intranet host. Only a loopback
  // test machine may say so.
  if (push.allow_insecure_endpoints && !test_mode) {
    throw ConfigError(
        "configuration key [push] allow_insecure_endpoints: turns the SSRF guard off; tests only, needs [server] "
        "test_mode = true");
  }
  r.integer("push.ttl", push.ttl, 0, 2419200);
  r.one_of("push.urgency", push.urgency, {"very-low", "low", "normal", "high"});
  r.integer("push.timeout_ms", push.timeout_ms, 100, 120000);
  r.integer("push.connect_timeout_ms", push.connect_timeout_ms, 100, 120000);
  std::vector<std::string> ports;
  r.list("push.allowed_ports", ports);
  if (r.raw("push.allowed_ports")) {
    push.allowed_ports.clear();
    for (const auto& p : ports) {
      char* end = nullptr;
      long n = std::strtol(p.c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > 65535) {
        throw ConfigError("configuration key [push] allowed_ports: expected port numbers, got '" + p + "'");
      }
      push.allowed_ports.push_back(static_cast<int>(n));
    }
  }
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  std::string h(host);
  return inet_pton(AF_INET, h.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

std::string url_host(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') return std::string(rest.substr(0, rest.find(']') + 1));
  return std::string(rest.substr(0, rest.find(':')));
}

Config parse_config(const IniValues& values, const std::string& path) {
  Config c;
  c.path = path;
  Reader r(values);
  read_server(r, c.server);
  read_databases(r, c.database, c.merge);
  read_auth(r, c.auth);
  read_keys(r, c.keys);
  read_tokens(r, c.tokens, c.keys);
  read_smtp(r, c.smtp);
  if (c.keys.mail_key.empty() && (!c.smtp.bounce_address.empty() || !c.smtp.unsubscribe_url.empty())) {
    throw ConfigError(
        "missing required configuration key [keys] mail_key (svc-admin keygen prints one; it signs bounce tags and "
        "unsubscribe links)");
  }
  read_sms(r, c.sms);
  read_push(r, c.push, c.server.test_mode);
  r.integer("outbound.per_site", c.outbound.per_site, 0, 1024);
  r.str("doctor.nginx_snippet", c.doctor.nginx_snippet);
  r.str("doctor.nginx_front_secret", c.doctor.nginx_front_secret);
  r.reject_unknown();
  return c;
}

Config load_config(const std::string& path) { return parse_config(load_ini_file(path), path); }

std::string config_path_from(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) return argv[i + 1];
    if (std::strncmp(argv[i], "--config=", 9) == 0) return argv[i] + 9;
  }
  if (const char* env = std::getenv("SVC_CONFIG"); env && *env) return env;
  return "/etc/svc/svc.conf";
}

}  // namespace svc::config
