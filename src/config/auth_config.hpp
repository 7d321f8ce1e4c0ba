#pragma once
// [auth]: user tables, token lifetimes, the account pages, Argon2id cost,
// login throttling and the rules of sign-in codes by SMS and e-mail. Every
// key is documented in docs/configuration.md with its default. The keys
// that sign and seal are [keys] (keys_config.hpp).

#include <string>
#include <vector>

namespace svc::config {

class Reader;

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
  // The "this wasn't me" page of the new-device mail (issue 37; nginx serves
  // it at /account/not-me), absolute http(s) URL; "" = reset_page with its
  // last segment "reset" replaced by "not-me", when it has one.
  std::string not_me_page;
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
  // The breached-password list (svc-admin passwords import-breached writes
  // it, workers map it: crypto/breached_list.hpp); "" = none.
  std::string breached_list;
};

// Reads and checks [auth]; throws ConfigError naming the first bad key.
void read_auth(Reader& r, AuthSettings& auth);

}  // namespace svc::config
