#include "config/auth_config.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "config/reader.hpp"

namespace svc::config {
namespace {

void check_identifier(const std::string& key, const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw ConfigError("configuration key " + key + ": '" + name + "' is not a plain table name");
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

// [auth] reset_page, verify_page and not_me_page: "" or an http(s) URL without query or
// fragment.
void check_page(const char* name, const std::string& url) {
  if (!url.empty() && ((url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) ||
                       url.find_first_of("#? \r\n\t\"<>") != std::string::npos)) {
    throw ConfigError(std::string("configuration key [auth] ") + name + ": '" + url +
                      "' is not an http(s) URL without query or fragment");
  }
}

// [auth] `name` (a page beside the reset page): when unset, reset_page
// with its last segment "reset" replaced by `segment`, if it has one.
void read_page_beside_reset(Reader& r, const AuthSettings& auth, const char* name, const char* segment,
                            std::string& page) {
  r.str(std::string("auth.") + name, page);
  const std::string& reset = auth.reset_page;
  if (page.empty() && reset.size() > 6 && reset.compare(reset.size() - 6, 6, "/reset") == 0) {
    page = reset.substr(0, reset.size() - 5) + segment;
  }
  check_page(name, page);
}

// reset_page, then verify_page and not_me_page (which default from it).
void read_pages(Reader& r, AuthSettings& auth) {
  r.str("auth.reset_page", auth.reset_page);
  check_page("reset_page", auth.reset_page);
  read_page_beside_reset(r, auth, "verify_page", "verify", auth.verify_page);
  read_page_beside_reset(r, auth, "not_me_page", "not-me", auth.not_me_page);
}

// After [auth] tables, which must not be empty: signup_tables, a subset of
// them.
void read_signup_tables(Reader& r, AuthSettings& auth) {
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
}

// After the argon2_* keys and allow_weak_hashing.
void check_hashing_cost(const AuthSettings& auth) {
  if (!auth.allow_weak_hashing && auth.argon2_memlimit < 19ULL * 1024 * 1024) {
    throw ConfigError(
        "configuration key [auth] argon2_memlimit: below 19 MiB (19922944) needs [auth] allow_weak_hashing = true");
  }
  if (!auth.allow_weak_hashing && auth.argon2_opslimit < 2) {
    throw ConfigError("configuration key [auth] argon2_opslimit: below 2 needs [auth] allow_weak_hashing = true");
  }
}

}  // namespace

void read_auth(Reader& r, AuthSettings& auth) {
  r.list("auth.tables", auth.tables);
  r.list("auth.folder_tables", auth.folder_tables);
  for (const auto& t : auth.tables) check_identifier("[auth] tables", t);
  for (const auto& t : auth.folder_tables) check_identifier("[auth] folder_tables", t);
  r.integer("auth.access_ttl", auth.access_ttl, 60, 86400 * 7);
  r.integer("auth.refresh_ttl", auth.refresh_ttl, 60, 86400LL * 365);
  r.integer("auth.reset_ttl", auth.reset_ttl, 60, 86400 * 7);
  read_pages(r, auth);
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
  r.str("auth.breached_list", auth.breached_list);
  if (!auth.breached_list.empty() && auth.breached_list.front() != '/') {
    throw ConfigError("configuration key [auth] breached_list: '" + auth.breached_list + "' is not an absolute path");
  }
  read_signup_tables(r, auth);
  check_hashing_cost(auth);
}

}  // namespace svc::config
