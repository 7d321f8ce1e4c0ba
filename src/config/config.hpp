#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/ini.hpp"
#include "config/net.hpp"
#include "crypto/jwt.hpp"

namespace svc::config {

// Every key is documented in docs/configuration.md with its default.

// The most workers one svc-fcgi master may run across its pools. During a
// reload two generations run side by side, and every worker needs a record
// in the shared tables (metrics::kMaxWorkerSlots = 2 x this), or the
// per-site outbound cap has no way to count it.
inline constexpr int kMaxWorkers = 128;

struct ServerSettings {
  std::string socket = "/run/svc/svc-fcgi.sock";  // unix path, or IPv4:port / [IPv6]:port
  int socket_mode = 0660;
  int backlog = 256;
  int workers = 0;  // 0 = number of online CPUs
  long max_requests = 10000;
  int drain_seconds = 20;
  std::string hashing_socket;  // "" = one pool; else a second pool for the Argon2id routes
  int hashing_workers = 0;     // 0 = number of online CPUs
  int site_cache_seconds = 1;  // how long a worker reuses a site row for /message/*; 0 = never; at most 60
  // "" = the outbound routes (push, SMS code, notification) stay in the main
  // pool; else a third pool on this socket, sized for waiting on outside parties.
  std::string outbound_socket;
  int outbound_workers = 16;
  // Peers a TCP socket accepts FastCGI connections from (unix sockets
  // ignore it). Default: loopback only.
  std::vector<Cidr> allowed_peers = loopback_peers();
  int template_cache_seconds = 1;  // how long a worker reuses a notification template; 0 = never
  // Marks a test configuration (the local stack, the test suites): only
  // accepted when every FastCGI socket is a unix path or a loopback address,
  // and the only way to enable the tests-only settings ([push]
  // allow_insecure_endpoints).
  bool test_mode = false;
  // The file holding the secret nginx passes as FastCGI parameter
  // SVC_FRONT_SECRET (fcgi/front_secret.hpp); svc-fcgi refuses to start
  // without it. "" (written "none") = no check, only with test_mode.
  std::string front_secret_file = "/etc/svc/front-secret";
};

// wsrep_sync_wait for the session on a Galera node (never sent to a server
// with wsrep off): off = 0, reads = 1 (SELECT, SHOW, START TRANSACTION),
// reads_writes = 7 (also UPDATE, DELETE, INSERT, REPLACE).
enum class SyncWait { kOff, kReads, kReadsWrites };

struct DbSettings {
  std::string host = "localhost";
  int port = 3306;
  std::string socket;  // unix socket path; used instead of host:port when set
  std::string user;
  std::string password;
  std::string name = "svc";
  int connect_timeout = 5;
  int statement_timeout_ms = 2000;  // [database.merge] only
  // [database] hosts: Galera (or any) nodes tried in order; an entry that
  // is an absolute path is a unix socket (port 0). Empty = the one node
  // socket, else host:port. Never set together with socket.
  std::vector<HostPort> hosts;
  SyncWait sync_wait = SyncWait::kReadsWrites;
  // How many times a whole write transaction runs when the server answers
  // deadlock / certification failure (1213) or "node not ready" (1047).
  int transaction_attempts = 4;
  // TLS to the server (Connector/C++ sslCA, sslCert, sslKey, sslVerify,
  // sslEnforce): on when ssl_ca is set, and then required (a server that
  // does not speak TLS is refused). ssl_cert/ssl_key: a client certificate,
  // both or neither. ssl_verify = false keeps TLS but skips the check of the
  // server's certificate and name.
  std::string ssl_ca;
  std::string ssl_cert;
  std::string ssl_key;
  bool ssl_verify = true;
  bool tls() const { return !ssl_ca.empty(); }
  bool configured() const { return !user.empty(); }
  // The nodes to try, in order: `hosts`; else socket (as {path, 0}); else host:port.
  std::vector<HostPort> nodes() const {
    if (!hosts.empty()) return hosts;
    if (!socket.empty()) return {{socket, 0}};
    return {{host, port}};
  }
};

// The rules of one kind of sign-in code (SMS, e-mail). The daily caps count
// per user over a rolling 24 h, across codes (issue 22), in the database
// (svc_sms_events, svc_email_code_events), so every worker and host shares
// them.
struct CodeRules {
  int ttl;              // seconds a code stays valid
  int resend_seconds;   // at most one new code per this many seconds
  int max_attempts;     // guesses per code
  int max_sent_daily;   // codes sent
  int max_wrong_daily;  // wrong guesses
};

// The per-account cap on wrong answers to a second factor (issue 36): every
// lock_after-th wrong answer within a rolling 24 h locks the account's
// second factor for lock_seconds, doubled with each further lock; the
// max_wrong_daily-th locks it until the oldest of them is 24 h old.
struct MfaLockRules {
  int lock_after = 5;        // [auth] mfa_lock_after
  int lock_seconds = 60;     // [auth] mfa_lock_seconds
  int max_wrong_daily = 20;  // [auth] mfa_max_wrong_daily
};

struct AuthSettings {
  std::vector<std::string> tables{"svc_users"};
  std::vector<std::string> folder_tables{"svc_folders"};
  // The tables /auth/sign-up may insert into: each one of `tables`; unset or
  // empty = the first of `tables` only (issue 22).
  std::vector<std::string> signup_tables;
  long long access_ttl = 3600;
  long long refresh_ttl = 30LL * 24 * 3600;
  long long reset_ttl = 3600;
  // The ready reset page (nginx serves it at /account/reset), absolute
  // http(s) URL; reset links of sites without reset_url point there, with
  // the token in the fragment. "" = such sites must send request-pass's url.
  std::string reset_page;
  unsigned long long argon2_opslimit = 2;
  unsigned long long argon2_memlimit = 19ULL * 1024 * 1024;
  int login_max_failures = 10;
  int login_window = 900;
  MfaLockRules mfa_lock;
  // [auth] sms_code_ttl, sms_resend_seconds, sms_max_attempts,
  // sms_max_sent_daily, sms_max_wrong_daily.
  CodeRules sms{600, 60, 5, 5, 10};
  // [auth] email_code_ttl, email_code_resend_seconds, email_code_max_attempts,
  // email_code_max_sent_daily, email_code_max_wrong_daily: e-mail sign-in
  // codes (issue 26), the SMS code rules in tables of their own
  // (svc_email_codes, svc_email_code_events).
  CodeRules email_code{600, 60, 5, 10, 10};
  // Address verification (issue 26): the ready verification page (nginx
  // serves it at /account/verify), absolute http(s) URL; "" = reset_page
  // with its last segment "reset" replaced by "verify", when it has one.
  std::string verify_page;
  long long verify_ttl = 2 * 86400;  // lifetime of a verification link
  // Argon2id below m = 19 MiB or t = 2 is refused unless this is set (tests).
  bool allow_weak_hashing = false;
  // Who may call /auth/getFolderLimits: "token_or_site_key" (a bearer access
  // token for userId, or the appID site's x-site-key) or "none" (anyone: the
  // literal spec, unsafe).
  std::string folder_limits_auth = "token_or_site_key";
  // How long a worker may answer /auth/refresh-token and /auth/user-email
  // from a user row it read (auth/user_cache.hpp); 0 = read it every time.
  // At most 1: it is how late a revocation may apply.
  int user_cache_seconds = 1;
};

struct KeySettings {
  crypto::JwtKeyRing jwt;           // [keys] jwt_kid, jwt_secret, jwt_previous
  std::string id_key;               // 32 raw bytes: sealed user/customer ids
  std::string sms_key;              // HMAC key for stored SMS codes
  std::string reset_key;            // HMAC key for password fingerprints in reset tokens
  std::string legacy_password_key;  // the PHP openssl_encrypt key of legacy passwords ("" = none)
  // 32 raw bytes: seals the private halves of the access-token signing keys
  // in svc_signing_keys; "" only with [tokens] access_alg = HS256.
  std::string signing_kek;
  // 32 raw bytes: seals TOTP secrets in svc_mfa_factors and keys the hashes
  // of recovery codes; "" = the second factor cannot be set up.
  std::string mfa_key;
  // 32 raw bytes: the HMAC key of bounce tags (VERP) and one-click
  // unsubscribe tokens; "" only when [smtp] bounce_address and
  // unsubscribe_url are both unset.
  std::string mail_key;
};

// [tokens]: access tokens (docs/decisions.md "Access tokens any backend can
// verify"). Refresh and reset tokens keep [keys] jwt.
struct TokenSettings {
  // The `iss` of every access token: an https URL without query or fragment.
  std::string issuer = "https://svc.localhost";
  // "ES256" (default) | "EdDSA": the algorithm of the first key
  // `svc-admin migrate` makes and of `signing-keys rotate` without --alg;
  // access tokens are signed by the newest active key of svc_signing_keys
  // whatever this says. "HS256": the legacy format signed with [keys] jwt
  // (svc-admin doctor fails it).
  std::string access_alg = "ES256";
  bool legacy_hs256() const { return access_alg == "HS256"; }
  // How long a worker reuses the key set it read from svc_signing_keys.
  int key_cache_seconds = 5;
};

struct SmtpSettings {
  std::string host = "127.0.0.1";
  int port = 25;
  std::string security = "plain";  // plain | starttls | tls
  std::string auth = "none";       // none | login | plain
  std::string username;
  std::string password;
  int timeout = 30;
  bool verify_peer = true;
  std::string helo_name;
  int batch = 50;
  int lease_seconds = 300;
  int max_attempts = 5;
  int backoff_seconds = 60;  // first retry delay; doubles per attempt, with jitter
  int sessions = 4;          // SMTP sessions svc-sender runs in parallel (threads)
  // Envelope sender of every mail, "bounce@bounces.example.com": each mail
  // goes out as bounce+<tag>@..., the tag naming its outbox row under an
  // HMAC ([keys] mail_key); "" = the From address (no bounce handling).
  std::string bounce_address;
  // The one-click unsubscribe endpoint as mail readers reach it,
  // "https://svc.example.com/mail/unsubscribe" (http only to loopback);
  // "" = bulk mail carries no List-Unsubscribe.
  std::string unsubscribe_url;
  // The From of account mail svc sends on its own behalf, with no site to
  // send from (a factor changed with a token issued without an appID);
  // "" = such mail is not sent.
  std::string from;
  // Bounce-rate guard: a site whose hard bounces in the last hour exceed
  // this percentage of its mail in that hour (when it sent at least
  // bounce_rate_min_mails) has its bulk mail held back. 0 = off.
  int max_bounce_rate = 5;
  int bounce_rate_min_mails = 100;
};

struct SmsSettings {
  std::string driver = "log";  // log | http
  std::string url;
  std::string method = "POST";
  std::string auth_header;  // full header line, e.g. "Authorization: Bearer xyz"
  std::string content_type = "application/json";
  std::string body_template = R"({"to":"[to]","text":"[text]"})";
  std::string message = "Your verification code is [code]";
  int timeout_ms = 5000;
  int connect_timeout_ms = 3000;  // capped by timeout_ms
};

struct PushSettings {
  bool allow_insecure_endpoints = false;  // tests only: http and loopback endpoints
  std::vector<int> allowed_ports;         // ports a push endpoint may use besides 443
  long long ttl = 2419200;
  std::string urgency = "normal";
  int timeout_ms = 10000;
  int connect_timeout_ms = 3000;  // capped by timeout_ms
};

// [outbound]: calls that wait on an outside party (push service, merge SQL).
struct OutboundSettings {
  int per_site = 4;  // concurrent outbound calls of one site across all workers; 0 = no cap
};

// [doctor]: where `svc-admin doctor` looks for the nginx files it checks
// (its --nginx-snippet and --nginx-front-secret options override these).
struct DoctorSettings {
  std::string nginx_snippet = "/etc/nginx/snippets/svc-locations.conf";
  std::string nginx_front_secret = "/etc/nginx/svc-front-secret.conf";
};

struct Config {
  std::string path;
  ServerSettings server;
  DbSettings database;
  DbSettings merge;  // [database.merge]: read-only account for raw SQL merge fields
  AuthSettings auth;
  KeySettings keys;
  TokenSettings tokens;
  SmtpSettings smtp;
  SmsSettings sms;
  PushSettings push;
  OutboundSettings outbound;
  DoctorSettings doctor;
};

// Parses and validates; throws ConfigError whose message names the offending
// key (unknown keys included) so start-up stops with a clear line.
Config parse_config(const IniValues& values, const std::string& path);
Config load_config(const std::string& path);

// True for "localhost", 127.0.0.0/8 and ::1 (with or without brackets).
bool is_loopback_host(std::string_view host);

// The host of an absolute URL ("http://h:1/x" -> "h", "http://[::1]/" ->
// "[::1]"); "" when `url` has no "scheme://".
std::string url_host(std::string_view url);

// The config file path from --config FILE / --config=FILE in argv, else the
// SVC_CONFIG environment variable, else /etc/svc/svc.conf.
std::string config_path_from(int argc, char** argv);

}  // namespace svc::config
