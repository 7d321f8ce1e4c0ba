#pragma once
// The Settings capability of site management (design "Site administrators
// and the site management API"): what a site's administrators may change
// of its svc_sites row and its passkey relying party, for
// /admin/sites/{site}/settings and `svc-admin site set|create`. Workers
// cache sites for [server] site_cache_seconds: a change reaches every
// worker within that time.

#include <optional>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "manage/actor.hpp"

namespace svc::manage {

struct SiteSettings {
  std::string name;
  std::string email_from;
  std::string email_cc;   // the address of the CC user ("" = none)
  std::string email_bcc;  // the address of the BCC user ("" = none)
  bool disable_email = false;
  bool verify_email = false;
  bool new_device_mail = false;
  int min_password_score = 0;
  std::vector<std::string> reset_urls;
  std::string passkey_rp_id;  // "" = passkeys off
  std::vector<std::string> passkey_origins;
};

// The CC or BCC user a change names: by address (the API), or by user id
// (svc-admin's --email-cc USER_ID); both empty = none.
struct CopyUser {
  std::string address;
  long long user_id = 0;
};

// What a change names; nullopt = left as it is.
struct SettingsChange {
  std::optional<std::string> name;
  std::optional<std::string> email_from;
  std::optional<CopyUser> email_cc;
  std::optional<CopyUser> email_bcc;
  std::optional<bool> disable_email;
  std::optional<bool> verify_email;
  std::optional<bool> new_device_mail;
  std::optional<long long> min_password_score;
  std::optional<std::vector<std::string>> reset_urls;
  std::optional<std::string> passkey_rp_id;  // "" = passkeys off
  std::optional<std::vector<std::string>> passkey_origins;
  bool empty() const;
};

// The site's settings as stored now (not through a worker's cache). Any role.
SiteSettings read_settings(core::Context& ctx, const Actor& actor);

// Checks the whole change (400 naming the first bad field's name as in
// SiteSettings: a score outside 0..4, an address that is no user of the
// site's pool, a reset URL or origin the rules refuse, a site that would
// mail without a sender), then writes it and its one audit row
// "settings.update" (the fields that changed, old -> new) in one
// transaction. Nothing is written when a field is refused. Role admin.
SiteSettings update_settings(core::Context& ctx, const Actor& actor, const SettingsChange& change);

// The checks update_settings makes, for `site create`, which has no site
// to change yet: the reset URLs (absolute http(s), http:// only for a
// loopback host, 2048 characters in all). 400 naming reset_urls.
std::vector<std::string> checked_reset_urls(const std::vector<std::string>& urls);

// "a, b ,c" -> {"a", "b", "c"}: a comma-separated option (--reset-url,
// --origins), each item trimmed, empty ones skipped.
std::vector<std::string> split_list(const std::string& text);

}  // namespace svc::manage
