#include "manage/settings.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "crypto/password_score.hpp"
#include "db/passkey_repo.hpp"
#include "db/site_repo.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/reset_url.hpp"
#include "manage/audit.hpp"
#include "webhooks/events.hpp"

namespace svc::manage {
namespace {

constexpr size_t kMaxListText = 2048;  // reset_url and the origins column, space-separated

[[noreturn]] void refuse(const char* field, const std::string& message) {
  throw http::ApiError::validation(field, message);
}

// A WebAuthn RP id: a lower-case host name (labels of [a-z0-9-], dots
// between), no scheme, port or path; "localhost" included.
bool valid_rp_id(const std::string& id) {
  if (id.empty() || id.size() > 253 || id.front() == '.' || id.back() == '.' || id.find("..") != std::string::npos) {
    return false;
  }
  return std::all_of(id.begin(), id.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; });
}

// An origin the site's pages run on: scheme://host[:port], nothing after;
// https, or http for localhost (and *.localhost), which browsers treat as
// secure; the host must be the RP id or lie under it (WebAuthn §5.1.3).
void check_origin(const std::string& origin, const std::string& rp_id) {
  const std::string quoted = "'" + core::mask_controls(origin) + "' ";
  const std::size_t sep = origin.find("://");
  if (sep == std::string::npos) refuse("passkey_origins", quoted + "is not scheme://host[:port]");
  const std::string scheme = origin.substr(0, sep);
  std::string host = origin.substr(sep + 3);
  if (host.find_first_of("/?#@ ") != std::string::npos || host.empty()) {
    refuse("passkey_origins", quoted + "must be scheme://host[:port] without path, query or user");
  }
  const std::size_t colon = host.find(':');
  if (colon != std::string::npos) {
    const std::string port = host.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      refuse("passkey_origins", quoted + "has a bad port");
    }
    host = host.substr(0, colon);
  }
  const bool local = host == "localhost" || (host.size() > 10 && host.ends_with(".localhost"));
  if (scheme != "https" && !(scheme == "http" && local)) {
    refuse("passkey_origins", quoted + "must be https:// (http:// only for localhost)");
  }
  if (host != rp_id && !host.ends_with("." + rp_id)) {
    refuse("passkey_origins", quoted + "is not on the RP id " + rp_id + " or a subdomain of it");
  }
}

// The relying party and origins after `change` (WebAuthn): a new RP id
// alone allows https://RP_ID; "" turns passkeys off (the site's passkeys
// stay stored); origins alone keep the RP id.
db::RelyingParty next_rp(const SettingsChange& change, const std::optional<db::RelyingParty>& current) {
  db::RelyingParty rp;
  rp.rp_id = change.passkey_rp_id ? core::ascii_lower(*change.passkey_rp_id) : current ? current->rp_id : "";
  if (rp.rp_id.empty()) {
    if (change.passkey_origins && !change.passkey_origins->empty()) {
      refuse("passkey_origins", "origins need a relying party id (an empty passkey_rp_id turns passkeys off)");
    }
    return rp;
  }
  if (!valid_rp_id(rp.rp_id)) refuse("passkey_rp_id", "expects a host name such as example.com (or none)");
  if (change.passkey_origins) {
    rp.origins = *change.passkey_origins;
  } else if (current && current->rp_id == rp.rp_id) {
    rp.origins = current->origins;
  }
  if (rp.origins.empty()) rp.origins.push_back("https://" + rp.rp_id);
  for (const auto& origin : rp.origins) check_origin(origin, rp.rp_id);
  if (core::join(rp.origins, " ").size() > kMaxListText) refuse("passkey_origins", "at most 2048 characters in all");
  return rp;
}

// A sender as a From: header takes it: "addr" or "Name <addr>", no
// control characters, at most the column's 320 bytes.
void check_sender(const std::string& from) {
  if (from.empty()) return;
  if (from.size() > 320 || core::has_controls(from) || from.find('@') == std::string::npos) {
    refuse("email_from", "email_from must be an address or 'Name <address>' (at most 320 bytes)");
  }
}

// The id of the CC / BCC user a change names: a user of the site's pool
// in the service's own users table, where the mail sender looks them up
// (spec "Site settings"); 0 = none.
long long copy_user_id(core::Context& ctx, const Actor& actor, const CopyUser& copy, const char* field) {
  db::UserRepo users(ctx.db, db::TableName::builtin_users(), actor.pool_id);
  const std::string unknown = std::string(field) + " must be the address of a user of the site's pool";
  if (!copy.address.empty()) {
    if (copy.address.size() > 254) refuse(field, unknown);
    auto user = users.find_by_email(copy.address);
    if (!user) refuse(field, unknown);
    return user->id;
  }
  if (copy.user_id <= 0) return 0;
  auto user = users.find_by_id(copy.user_id);
  if (!user || user->pool_id != actor.pool_id) refuse(field, std::string(field) + " is no user of the site's pool");
  return user->id;
}

std::string copy_address(core::Context& ctx, long long user_id) {
  if (user_id <= 0) return "";
  auto user = db::UserRepo(ctx.db, db::TableName::builtin_users()).find_by_id(user_id);
  return user ? user->email : "";
}

db::Site stored_site(core::Context& ctx, const Actor& actor) {
  auto site = db::SiteRepo(ctx.db).find(actor.site_id);
  if (!site) throw http::ApiError::failed(404, "Site not found");
  return *site;
}

SiteSettings settings_of(core::Context& ctx, const db::Site& site, const std::optional<db::RelyingParty>& rp) {
  SiteSettings s;
  s.name = site.name;
  s.email_from = site.email_from;
  s.email_cc = copy_address(ctx, site.email_cc);
  s.email_bcc = copy_address(ctx, site.email_bcc);
  s.disable_email = site.disable_email;
  s.verify_email = site.verify_email;
  s.new_device_mail = site.new_device_mail;
  s.min_password_score = site.min_password_score;
  s.reset_urls = site.reset_urls;
  if (rp) {
    s.passkey_rp_id = rp->rp_id;
    s.passkey_origins = rp->origins;
  }
  return s;
}

// "field: old -> new" for each setting that differs, "; " between.
std::string changes(const SiteSettings& before, const SiteSettings& after) {
  std::vector<std::string> out;
  auto note = [&](const char* field, const std::string& a, const std::string& b) {
    if (a != b) out.push_back(std::string(field) + ": " + (a.empty() ? "-" : a) + " -> " + (b.empty() ? "-" : b));
  };
  auto flag = [](bool v) { return std::string(v ? "true" : "false"); };
  note("name", before.name, after.name);
  note("email_from", before.email_from, after.email_from);
  note("email_cc", before.email_cc, after.email_cc);
  note("email_bcc", before.email_bcc, after.email_bcc);
  note("disable_email", flag(before.disable_email), flag(after.disable_email));
  note("verify_email", flag(before.verify_email), flag(after.verify_email));
  note("new_device_mail", flag(before.new_device_mail), flag(after.new_device_mail));
  note("min_password_score", std::to_string(before.min_password_score), std::to_string(after.min_password_score));
  note("reset_urls", core::join(before.reset_urls, " "), core::join(after.reset_urls, " "));
  note("passkey_rp_id", before.passkey_rp_id, after.passkey_rp_id);
  note("passkey_origins", core::join(before.passkey_origins, " "), core::join(after.passkey_origins, " "));
  std::string detail = core::mask_controls(core::join(out, "; "));
  if (detail.size() > 1024) detail = detail.substr(0, 1021) + "...";
  return detail;
}

}  // namespace

bool SettingsChange::empty() const {
  return !name && !email_from && !email_cc && !email_bcc && !disable_email && !verify_email && !new_device_mail &&
         !min_password_score && !reset_urls && !passkey_rp_id && !passkey_origins;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    start = comma + 1;
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::vector<std::string> checked_reset_urls(const std::vector<std::string>& urls) {
  for (const auto& url : urls) {
    const auto parsed = http::parse_reset_url(url);
    if (!parsed) {
      refuse("reset_urls", "'" + core::mask_controls(url) + "' is not an absolute http(s) URL a link can carry");
    }
    if (!http::reset_transport_ok(*parsed)) {
      refuse("reset_urls", "http:// is only allowed for a loopback host; use https://");
    }
  }
  if (core::join(urls, " ").size() > kMaxListText) refuse("reset_urls", "at most 2048 characters in all");
  return urls;
}

SiteSettings read_settings(core::Context& ctx, const Actor& actor) {
  return settings_of(ctx, stored_site(ctx, actor), db::PasskeyRepo(ctx.db).find_rp(actor.site_id));
}

SiteSettings update_settings(core::Context& ctx, const Actor& actor, const SettingsChange& change) {
  require_role(actor, Role::kAdmin);
  db::Site site = stored_site(ctx, actor);
  const auto current_rp = db::PasskeyRepo(ctx.db).find_rp(actor.site_id);
  const SiteSettings before = settings_of(ctx, site, current_rp);
  // Every check first: a refused field leaves everything as it was.
  if (change.name) {
    if (change.name->empty() || change.name->size() > 190 || core::has_controls(*change.name)) {
      refuse("name", "name must be 1 to 190 characters, no control characters");
    }
    site.name = *change.name;
  }
  if (change.email_from) {
    check_sender(*change.email_from);
    site.email_from = *change.email_from;
  }
  if (change.disable_email) site.disable_email = *change.disable_email;
  if ((change.email_from || change.disable_email) && site.email_from.empty() && !site.disable_email) {
    refuse("email_from", "a site that sends mail needs a sender: email_from, or disable_email true");
  }
  if (change.email_cc) site.email_cc = copy_user_id(ctx, actor, *change.email_cc, "email_cc");
  if (change.email_bcc) site.email_bcc = copy_user_id(ctx, actor, *change.email_bcc, "email_bcc");
  if (change.min_password_score &&
      (*change.min_password_score < 0 || *change.min_password_score > crypto::kMaxPasswordScore)) {
    refuse("min_password_score",
           "min_password_score must be 0 (off) to 4 (the zxcvbn score a new password must reach)");
  }
  if (change.reset_urls) site.reset_urls = checked_reset_urls(*change.reset_urls);
  const bool rp_changes = change.passkey_rp_id || change.passkey_origins;
  const db::RelyingParty rp = rp_changes ? next_rp(change, current_rp) : db::RelyingParty{};
  if (change.verify_email) site.verify_email = *change.verify_email;
  if (change.new_device_mail) site.new_device_mail = *change.new_device_mail;
  if (change.min_password_score) site.min_password_score = static_cast<int>(*change.min_password_score);

  SiteSettings after = settings_of(ctx, site, rp_changes ? std::optional(rp) : current_rp);
  if (rp_changes && rp.rp_id.empty()) after.passkey_origins.clear();
  webhooks::atomically(ctx.db, [&] {
    db::SiteRepo repo(ctx.db);
    repo.update_settings(site);
    if (change.verify_email) repo.set_verify_email(site.id, site.verify_email);
    if (change.new_device_mail) repo.set_new_device_mail(site.id, site.new_device_mail);
    if (change.min_password_score) repo.set_min_password_score(site.id, site.min_password_score);
    if (rp_changes) db::PasskeyRepo(ctx.db).set_rp(site.id, rp.rp_id, rp.origins);
    audit(ctx, actor, "settings.update", "site " + std::to_string(site.id), changes(before, after));
    return true;
  });
  return after;
}

}  // namespace svc::manage
