#include "admin/site_commands.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "admin/operator_env.hpp"
#include "auth/tokens/access_tokens.hpp"
#include "config/config.hpp"
#include "core/text.hpp"
#include "db/site_mail_repo.hpp"
#include "db/site_repo.hpp"
#include "http/site_auth.hpp"
#include "manage/settings.hpp"
#include "manage/site_key.hpp"
#include "oidc/issuer.hpp"

namespace svc::admin {
namespace {

const std::vector<std::string> kSiteOptions = {
    "site",       "id",       "name",      "domain",  "reset-url",       "allowed-hosts", "disable-email",
    "email-from", "email-cc", "email-bcc", "api-key", "allow-sql-merge", "active",        "vapid-subject"};

// The options of `site set|create` the Settings service (manage/settings.hpp)
// checks, by the fields its refusals name; longest field first.
const std::vector<std::pair<std::string, std::string>> kSettingOptions = {{"min_password_score", "min-password-score"},
                                                                          {"passkey_origins", "origins"},
                                                                          {"passkey_rp_id", "rp-id"},
                                                                          {"new_device_mail", "new-device-mail"},
                                                                          {"disable_email", "disable-email"},
                                                                          {"verify_email", "verify-email"},
                                                                          {"reset_urls", "reset-url"},
                                                                          {"email_from", "email-from"},
                                                                          {"email_bcc", "email-bcc"},
                                                                          {"email_cc", "email-cc"}};

// --api-key: "none" (or "") removes the key on purpose, "generate" makes a
// new one through the site key service (manage/site_key.hpp: audited),
// anything else is taken as the key. Returns the new key when one was
// generated (to print once), "" otherwise.
std::string apply_api_key(const std::string& value, OperatorEnv& o, const manage::Actor& actor) {
  if (value == "generate") return manage::rotate_site_key(o.ctx, actor);
  db::SiteRepo(o.env.db).set_api_key_hash(actor.site_id,
                                          value.empty() || value == "none" ? "" : http::hash_site_key(value));
  return "";
}

// The Settings change the options name (--rp-id none: passkeys off).
manage::SettingsChange settings_change(const Args& args) {
  manage::SettingsChange c;
  if (auto v = args.get("name")) c.name = *v;
  if (auto v = args.get("email-from")) c.email_from = *v;
  if (args.get("email-cc")) c.email_cc = manage::CopyUser{"", args.integer("email-cc", 0)};
  if (args.get("email-bcc")) c.email_bcc = manage::CopyUser{"", args.integer("email-bcc", 0)};
  if (auto v = args.get("disable-email")) c.disable_email = parse_bool("disable-email", *v);
  if (auto v = args.get("verify-email")) c.verify_email = parse_bool("verify-email", *v);
  if (auto v = args.get("new-device-mail")) c.new_device_mail = parse_bool("new-device-mail", *v);
  if (args.get("min-password-score")) c.min_password_score = args.integer("min-password-score", 0);
  if (auto v = args.get("reset-url")) c.reset_urls = manage::split_list(*v);
  if (auto v = args.get("rp-id")) c.passkey_rp_id = core::ascii_lower(*v) == "none" ? "" : *v;
  if (auto v = args.get("origins")) c.passkey_origins = manage::split_list(*v);
  return c;
}

// kSiteOptions plus the mail delivery options (apply_mail_options) and
// --audience (apply_audience).
std::vector<std::string> with_mail_options(std::vector<std::string> options) {
  options.push_back("mail-per-hour");
  options.push_back("audience");
  options.push_back("verify-email");
  options.push_back("new-device-mail");
  options.push_back("min-password-score");
  options.push_back("rp-id");
  options.push_back("origins");
  options.push_back("user-pool");
  return options;
}

// --user-pool own|default|site:N (design "User pools"): the pool a site's
// users live in. nullopt = the option is absent; 0 = "own" (a new pool).
std::optional<long long> user_pool_option(const Args& args, db::Database& db) {
  auto v = args.get("user-pool");
  if (!v) return std::nullopt;
  if (*v == "own") return 0;
  if (*v == "default") return db::kDefaultPool;
  const std::string usage = "--user-pool expects own, default or site:N (the pool of site N)";
  if (v->rfind("site:", 0) != 0) throw UsageError(usage + ", not '" + *v + "'");
  const std::string digits = v->substr(5);
  const auto other = core::parse_id(digits);
  if (!other) throw UsageError(usage + ", not '" + *v + "'");
  auto site = db::SiteRepo(db).find(*other);
  if (!site) throw UsageError("--user-pool site:" + digits + ": no site with id " + digits);
  return site->user_pool;
}

// "pool 5, shared with sites 3, 4" / "pool 1 (default), no other site".
std::string pool_line(db::Database& db, const db::Site& site) {
  std::vector<long long> others = db::SiteRepo(db).sites_in_pool(site.user_pool);
  std::erase(others, site.id);
  return std::to_string(site.user_pool) + (site.user_pool == db::kDefaultPool ? " (default)" : "") +
         (others.empty() ? ", no other site" : ", shared with " + site_ids(others));
}

// The relying party as the Settings service reads it.
void print_passkey_rp(OperatorEnv& o, long long site_id) {
  const manage::SiteSettings s = manage::read_settings(o.ctx, o.on_site(site_id));
  const bool on = !s.passkey_rp_id.empty();
  std::printf("passkey_rp_id:   %s\n", on ? s.passkey_rp_id.c_str() : "(none: passkeys off)");
  if (on) std::printf("passkey_origins: %s\n", core::join(s.passkey_origins, ", ").c_str());
}

// --audience URI|default (issue 23): the `aud` of the site's access tokens,
// stored apart from the Site row's other columns. An absolute URI
// (scheme:...), at most 255 characters, no spaces or controls.
void apply_audience(const Args& args, db::Database& db, long long site_id) {
  auto v = args.get("audience");
  if (!v) return;
  std::string audience = *v == "default" ? "" : *v;
  const std::size_t colon = audience.find(':');
  const bool bad_char = std::any_of(audience.begin(), audience.end(),
                                    [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; });
  if (!audience.empty() && (colon == std::string::npos || colon == 0 || audience.size() > 255 || bad_char)) {
    throw UsageError("--audience expects an absolute URI such as https://app.example (or 'default')");
  }
  db::SiteRepo(db).set_audience(site_id, audience);
}

void print_site_identity(CommandEnv& env, const db::Site& site) {
  std::printf("user_pool:       %s\n", pool_line(env.db, site).c_str());
  std::printf("verify_email:    %s\n", site.verify_email ? "true" : "false");
  std::printf("new_device_mail: %s\n", site.new_device_mail ? "on" : "off");
  std::printf("min_password_score: %d%s\n", site.min_password_score, site.min_password_score == 0 ? " (off)" : "");
  std::printf("audience:        %s%s\n", auth::site_audience(site, env.config.tokens.issuer).c_str(),
              site.audience.empty() ? " (default)" : "");
  // Issue 48: what a site's backend checks (docs/api.md "Verifying access tokens").
  std::printf("token_issuer:    %s (iss of its access tokens)\n", env.config.tokens.issuer.c_str());
  std::printf("oidc_issuer:     %s (iss of its ID tokens)\n", oidc::issuer_of(env.config, site.id).c_str());
}

// The operator's own options (no site administrator changes these).
void apply_options(const Args& args, db::Site& s) {
  if (auto v = args.get("domain")) s.domain = *v;
  if (auto v = args.get("allowed-hosts")) {
    std::fprintf(stderr,
                 "note: --allowed-hosts no longer admits request-pass urls; list reset URL prefixes in "
                 "--reset-url\n");
    s.allowed_redirect_hosts.clear();
    std::string item;
    for (char c : *v + ",") {
      if (c == ',') {
        if (!item.empty()) s.allowed_redirect_hosts.push_back(item);
        item.clear();
      } else if (c != ' ') {
        item.push_back(c);
      }
    }
  }
  if (auto v = args.get("allow-sql-merge")) s.allow_sql_merge = parse_bool("allow-sql-merge", *v);
  if (auto v = args.get("active")) s.active = parse_bool("active", *v);
  if (auto v = args.get("vapid-subject")) {
    if (v->rfind("mailto:", 0) != 0 && v->rfind("https:", 0) != 0) {
      throw UsageError("--vapid-subject must start with mailto: or https:");
    }
    s.vapid_subject = *v;
  }
}

void print_site(const db::Site& s) {
  std::string hosts;
  for (const auto& h : s.allowed_redirect_hosts) hosts += (hosts.empty() ? "" : ",") + h;
  std::printf(
      "id:              %lld\nname:            %s\ndomain:          %s\nreset_urls:      %s\n"
      "allowed_hosts:   %s%s\ndisable_email:   %s\nemail_from:      %s\nemail_cc:        %lld\n"
      "email_bcc:       %lld\napi_key:         %s\nallow_sql_merge: %s\nactive:          %s\n"
      "vapid_public:    %s\nvapid_subject:   %s\n",
      s.id, s.name.c_str(), s.domain.c_str(), core::join(s.reset_urls, ", ").c_str(), hosts.c_str(),
      hosts.empty() ? "" : " (unused: reset urls must lie within reset_urls)", s.disable_email ? "true" : "false",
      s.email_from.c_str(), s.email_cc, s.email_bcc,
      s.api_key_hash.empty() ? "(none: KEYLESS, any caller naming this site-id is accepted)" : "(set)",
      s.allow_sql_merge ? "true" : "false", s.active ? "true" : "false", s.vapid_public_key.c_str(),
      s.vapid_subject.c_str());
}

// --mail-per-hour N|unlimited (issue 12): stored apart from the Site row.
void apply_mail_options(const Args& args, db::Database& db, long long site_id) {
  auto v = args.get("mail-per-hour");
  if (!v) return;
  std::optional<long long> per_hour;
  if (*v != "unlimited" && *v != "none") {
    per_hour = args.integer("mail-per-hour", 0);
    if (*per_hour < 1) throw UsageError("--mail-per-hour must be a positive number or 'unlimited'");
  }
  db::SiteMailRepo(db).set_mail_per_hour(site_id, per_hour);
}

void print_site_mail(db::Database& db, long long site_id) {
  const auto m = db::SiteMailRepo(db).find(site_id);
  if (!m) return;
  const std::string quota = m->mail_per_hour ? std::to_string(*m->mail_per_hour) : "unlimited";
  std::printf("mail_per_hour:   %s\n", quota.c_str());
  if (m->dkim) {
    std::printf("dkim:            %s._domainkey.%s (%s)\n", m->dkim->selector.c_str(), m->domain.c_str(),
                m->dkim->algorithm.c_str());
  } else {
    std::printf("dkim:            (none)\n");
  }
}

constexpr const char* kSenderNeeded =
    "a site that sends mail needs a sender: --email-from 'Name <ADDR>', or --domain D to send as no-reply@D "
    "(or --disable-email true)";

// site set --user-pool: refused while the site's pool holds users that
// signed in through it (moving users between pools is no command), before
// anything of the command is written.
void apply_user_pool(const Args& args, db::Database& db, const db::Site& site) {
  auto pool = user_pool_option(args, db);
  if (!pool || *pool == site.user_pool) return;
  db::SiteRepo repo(db);
  if (repo.has_sessions(site.id)) {
    throw UsageError("--user-pool: site " + std::to_string(site.id) + " has users who signed in through it (pool " +
                     std::to_string(site.user_pool) +
                     "); a site's pool cannot change once it has sessions, since they would lose their accounts");
  }
  repo.set_user_pool(site.id, *pool != 0 ? *pool : repo.create_pool());
}

// A new site's sender (issue 36): --email-from as given, else no-reply@ the
// site's --domain; a site without either sends no mail or is refused (an
// empty From: header is one relays reject).
void derive_sender(db::Site& s) {
  if (!s.email_from.empty() || s.disable_email) return;
  if (s.domain.empty()) throw UsageError(kSenderNeeded);
  s.email_from = "no-reply@" + s.domain;
  std::fprintf(stderr, "note: email_from = %s (from --domain; change it with site set --email-from)\n",
               s.email_from.c_str());
}

}  // namespace

std::string site_options_help() {
  return "site options: --name N --domain D --reset-url URL[,URL...] --allowed-hosts h1,h2 --disable-email true|false\n"
         "  --email-from ADDR --email-cc USER_ID --email-bcc USER_ID --api-key generate|none|KEY\n"
         "  --allow-sql-merge true|false --active true|false --vapid-subject mailto:...|https://...\n"
         "  --mail-per-hour N|unlimited --audience URI|default (the aud of its access tokens;\n"
         "  default https://DOMAIN) --verify-email [true|false] (sign-up mails a verification link;\n"
         "  a password login of an unverified address gets 403 Email not verified)\n"
         "  --new-device-mail on|off (a sign-in from a device the user's sessions have not shown\n"
         "  in 90 days mails new-sign-in)\n"
         "  --min-password-score 0..4 (the zxcvbn score a new password must reach at sign-up, reset\n"
         "  and change; 0, the default, is off)\n"
         "  --rp-id DOMAIN|none --origins URL[,URL...] (passkeys: the WebAuthn relying party and\n"
         "  the origins of its pages; default https://DOMAIN)\n"
         "  --user-pool own|default|site:N (where its users live: a pool of its own, the default\n"
         "  pool of requests without appID, or the pool of site N, for sites that share users and\n"
         "  single sign-on; site create defaults to own; site set refuses a change once users\n"
         "  signed in to the site)\n"
         "  (site create also takes --id N to keep an existing appID; it generates a key unless\n"
         "  --api-key none; a generated key is printed once as 'site_key: KEY'; without\n"
         "  --email-from it sends as no-reply@DOMAIN, and without --domain either it is refused\n"
         "  unless --disable-email true)\n";
}

int cmd_site_create(const Args& args, const std::string& config_path) {
  args.allow_only(with_mail_options(kSiteOptions));
  db::Site s;
  s.id = args.integer("id", 0);
  s.name = args.required("name");
  apply_options(args, s);
  // The settings its row holds from the start; the others go through the
  // Settings service once it exists.
  manage::SettingsChange change = settings_change(args);
  if (change.reset_urls) {
    s.reset_urls = naming_options(kSettingOptions, [&] { return manage::checked_reset_urls(*change.reset_urls); });
  }
  if (change.disable_email) s.disable_email = *change.disable_email;
  if (change.email_from) s.email_from = *change.email_from;
  if (change.email_cc) s.email_cc = change.email_cc->user_id;
  if (change.email_bcc) s.email_bcc = change.email_bcc->user_id;
  derive_sender(s);
  OperatorEnv o(config_path);
  CommandEnv& env = o.env;
  // A new site gets a pool of its own unless told otherwise (design "User pools").
  const long long pool = user_pool_option(args, env.db).value_or(0);
  const std::string api_key = args.get("api-key").value_or("generate");
  const std::string key = api_key == "generate" ? manage::generate_site_key() : "";
  s.api_key_hash = !key.empty()                           ? http::hash_site_key(key)
                   : api_key.empty() || api_key == "none" ? ""
                                                          : http::hash_site_key(api_key);
  s.user_pool = pool != 0 ? pool : db::SiteRepo(env.db).create_pool();
  long long id = db::SiteRepo(env.db).create(s);
  // The id stays the last line: scripts read it from there.
  if (!key.empty()) std::printf("site_key: %s\n", key.c_str());
  apply_mail_options(args, env.db, id);
  apply_audience(args, env.db, id);
  manage::SettingsChange later;
  later.verify_email = change.verify_email;
  later.new_device_mail = change.new_device_mail;
  later.min_password_score = change.min_password_score;
  later.passkey_rp_id = change.passkey_rp_id;
  later.passkey_origins = change.passkey_origins;
  if (!later.empty()) {
    naming_options(kSettingOptions, [&] { return manage::update_settings(o.ctx, o.on_site(id), later); });
  }
  std::printf("%lld\n", id);
  return 0;
}

int cmd_site_set(const Args& args, const std::string& config_path) {
  args.allow_only(with_mail_options(kSiteOptions));
  OperatorEnv o(config_path);
  CommandEnv& env = o.env;
  const long long site_id = args.required_integer("site");
  db::Site site = env.site(site_id);
  apply_options(args, site);  // checks the operator's options before anything is written
  const manage::SettingsChange change = settings_change(args);
  apply_user_pool(args, env.db, site);
  // The settings a site's administrators may change too: checked, written
  // and audited by the Settings service (a site without a sender refused).
  if (!change.empty()) {
    naming_options(kSettingOptions, [&] { return manage::update_settings(o.ctx, o.on_site(site_id), change); });
  }
  std::string key;
  if (auto v = args.get("api-key")) key = apply_api_key(*v, o, o.on_site(site_id));
  const db::Site operator_fields = site;
  site = env.site(site_id);
  site.domain = operator_fields.domain;
  site.allowed_redirect_hosts = operator_fields.allowed_redirect_hosts;
  site.allow_sql_merge = operator_fields.allow_sql_merge;
  site.active = operator_fields.active;
  site.vapid_subject = operator_fields.vapid_subject;
  db::SiteRepo(env.db).update(site);
  apply_mail_options(args, env.db, site.id);
  apply_audience(args, env.db, site.id);
  site = env.site(site.id);
  print_site(site);
  if (!key.empty()) std::printf("site_key: %s\n", key.c_str());
  print_site_mail(env.db, site.id);
  print_site_identity(env, site);
  print_passkey_rp(o, site.id);
  return 0;
}

int cmd_site_show(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  OperatorEnv o(config_path);
  CommandEnv& env = o.env;
  const db::Site site = env.site(args.required_integer("site"));
  print_site(site);
  print_site_mail(env.db, site.id);
  print_site_identity(env, site);
  print_passkey_rp(o, site.id);
  return 0;
}

int cmd_site_list(const Args& args, const std::string& config_path) {
  args.allow_only({});
  CommandEnv env(config_path);
  for (const auto& s : db::SiteRepo(env.db).list()) {
    // The key's state stays last (docs/decisions.md "Sites have keys by default").
    std::printf("%lld\t%s\t%s\t%s\tpool %lld\t%s\n", s.id, s.name.c_str(), s.active ? "active" : "inactive",
                s.disable_email ? "email disabled" : "email enabled", s.user_pool,
                s.api_key_hash.empty() ? "KEYLESS" : "keyed");
  }
  return 0;
}

}  // namespace svc::admin
