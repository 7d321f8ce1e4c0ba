#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

// One application (svc_sites row). id = appID = the site-id header.
struct Site {
  long long id = 0;
  std::string name;
  std::string domain;
  // The reset_url column, space-separated (issue 22): the first is the
  // reset page of links whose request names none; a request's url must lie
  // within one of them (http/reset_url.hpp).
  std::vector<std::string> reset_urls;
  // No longer consulted (issue 22: a reset url must lie within reset_urls,
  // not merely share a host); kept so existing rows and scripts stay valid.
  std::vector<std::string> allowed_redirect_hosts;
  bool disable_email = false;
  std::string email_from;
  long long email_cc = 0;         // user id, 0 = none
  long long email_bcc = 0;        // user id, 0 = none
  std::string vapid_public_key;   // base64url raw P-256 public key
  std::string vapid_private_key;  // base64url raw scalar
  std::string vapid_subject;
  std::string api_key_hash;  // hex; "" = no key required
  bool allow_sql_merge = false;
  bool active = true;
  std::string audience;  // the `aud` of its access tokens; "" = https://<domain> (auth/tokens/access_tokens.hpp)
  // site set --verify-email (sql/011): sign-up mails a verification link and
  // a password login of an unverified address is refused.
  bool verify_email = false;
  // site set --new-device-mail on (sql/017): a sign-in from a device the
  // user's sessions have not shown mails `new-sign-in` (auth/session/new_device.hpp).
  bool new_device_mail = false;
  // site set --min-password-score 0..4 (sql/027): the zxcvbn score a new
  // password must reach (auth/password/policy.hpp); 0 = off.
  int min_password_score = 0;
  // The user pool its users live in (sql/034, design "User pools"): 1 is
  // the default pool; site create gives a new site a pool of its own.
  long long user_pool = 1;
};

class SiteRepo {
 public:
  explicit SiteRepo(Database& db) : db_(db) {}
  std::optional<Site> find(long long id);
  std::vector<Site> list();
  // Admin only (svc-admin); the API never writes sites.
  long long create(const Site& site);
  void update(const Site& site);
  // The columns the Settings capability changes (manage/settings.hpp):
  // name, reset_url, disable_email, email_from, email_cc, email_bcc; never
  // the key, so a rotation beside it is not undone.
  void update_settings(const Site& site);
  // The hash of the site's key ("" = none): manage/site_key.hpp.
  void set_api_key_hash(long long id, const std::string& hash);
  // svc-admin site set --audience ("" = the default).
  void set_audience(long long id, const std::string& audience);
  // svc-admin site set --verify-email true|false.
  void set_verify_email(long long id, bool verify);
  // svc-admin site set --new-device-mail on|off.
  void set_new_device_mail(long long id, bool on);
  // svc-admin site set --min-password-score 0..4.
  void set_min_password_score(long long id, int score);
  // A new pool (svc_user_pools), for a site that gets one of its own.
  long long create_pool();
  // svc-admin site set --user-pool.
  void set_user_pool(long long id, long long pool);
  // The other sites of `pool`, ascending (site show).
  std::vector<long long> sites_in_pool(long long pool);
  // Whether sessions were opened on the site (site set --user-pool is
  // refused then: its pool holds users that signed in through it).
  bool has_sessions(long long id);

 private:
  Database& db_;
};

}  // namespace svc::db
