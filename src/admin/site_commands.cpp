#include "admin/site_commands.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "admin/command_env.hpp"
#include "admin/upstream_commands.hpp"
#include "auth/tokens/access_tokens.hpp"
#include "config/config.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/password_score.hpp"
#include "db/passkey_repo.hpp"
#include "db/site_mail_repo.hpp"
#include "db/site_repo.hpp"
#include "http/reset_url.hpp"
#include "http/site_auth.hpp"
#include "oidc/issuer.hpp"

namespace svc::admin {
namespace {

const std::vector<std::string> kSiteOptions = {
    "site",       "id",       "name",      "domain",  "reset-url",       "allowed-hosts", "disable-email",
    "email-from", "email-cc", "email-bcc", "api-key", "allow-sql-merge", "active",        "vapid-subject"};

// 32 random bytes, base64url (43 characters): the key a caller sends in
// x-site-key. Only its hash is stored, so it is shown exactly once.
std::string generate_site_key() {
  unsigned char bytes[32];
  randombytes_buf(bytes, sizeof bytes);
  std::string key = crypto::base64url_encode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
  sodium_memzero(bytes, sizeof bytes);
  return key;
}

// --api-key: "none" (or "") removes the key on purpose, "generate" makes a new
// one, anything else is taken as the key. Returns the new key when one was
// generated (to print once), "" otherwise.
std::string apply_api_key(const std::string& value, db::Site& s) {
  if (value.empty() || value == "none") {
    s.api_key_hash.clear();
    return "";
  }
  if (value != "generate") {
    s.api_key_hash = http::hash_site_key(value);
    return "";
  }
  std::string key = generate_site_key();
  s.api_key_hash = http::hash_site_key(key);
  return key;
}

// --reset-url: one or more reset URLs, comma-separated (issue 22); the first
// is the page of links whose request names none, and a request's url must
// lie within one of them. A reset link over http:// would carry the reset
// token in clear to any host but this machine: the rule request-pass
// applies to its url too (http/reset_url.hpp). "" = none (the ready page).
std::vector<std::string> parse_reset_urls(const std::string& value) {
  std::vector<std::string> urls;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string url = value.substr(start, comma - start);
    url.erase(0, url.find_first_not_of(" \t"));
    url.erase(url.find_last_not_of(" \t") + 1);
    start = comma + 1;
    if (url.empty()) continue;
    const auto parsed = http::parse_reset_url(url);
    if (!parsed) throw UsageError("--reset-url: '" + url + "' is not an absolute http(s) URL a link can carry");
    if (!http::reset_transport_ok(*parsed)) {
      throw UsageError("--reset-url: http:// is only allowed for a loopback host; use https://");
    }
    urls.push_back(url);
  }
  if (core::join(urls, " ").size() > 2048) throw UsageError("--reset-url: at most 2048 characters in all");
  return urls;
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
  options.push_back("signup");  // upstream_commands.hpp
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
  const std::string usage = "--origins: '" + origin + "' ";
  const std::size_t sep = origin.find("://");
  if (sep == std::string::npos) throw UsageError(usage + "is not scheme://host[:port]");
  const std::string scheme = origin.substr(0, sep);
  std::string host = origin.substr(sep + 3);
  if (host.find_first_of("/?#@ ") != std::string::npos || host.empty()) {
    throw UsageError(usage + "must be scheme://host[:port] without path, query or user");
  }
  const std::size_t colon = host.find(':');
  if (colon != std::string::npos) {
    const std::string port = host.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      throw UsageError(usage + "has a bad port");
    }
    host = host.substr(0, colon);
  }
  const bool local = host == "localhost" || (host.size() > 10 && host.ends_with(".localhost"));
  if (scheme != "https" && !(scheme == "http" && local)) {
    throw UsageError(usage + "must be https:// (http:// only for localhost)");
  }
  if (host != rp_id && !host.ends_with("." + rp_id)) {
    throw UsageError(usage + "is not on the RP id " + rp_id + " or a subdomain of it");
  }
}

// --rp-id DOMAIN|none and --origins URL[,URL...] (passkeys): stored apart
// from the Site row. --rp-id alone allows https://DOMAIN; "none" turns
// passkeys off for the site (its passkeys stay stored).
void apply_passkey_rp(const Args& args, db::Database& db, long long site_id) {
  auto rp_arg = args.get("rp-id");
  auto origins_arg = args.get("origins");
  if (!rp_arg && !origins_arg) return;
  db::PasskeyRepo repo(db);
  const auto current = repo.find_rp(site_id);
  std::string rp_id = rp_arg ? core::ascii_lower(*rp_arg) : current ? current->rp_id : "";
  if (rp_id == "none") {
    if (origins_arg) throw UsageError("--origins needs an RP id (--rp-id none turns passkeys off)");
    repo.set_rp(site_id, "", {});
    return;
  }
  if (!valid_rp_id(rp_id)) throw UsageError("--rp-id expects a host name such as example.com (or 'none')");
  std::vector<std::string> origins;
  if (origins_arg) {
    std::string item;
    for (char c : *origins_arg + ",") {
      if (c != ',') {
        if (c != ' ') item.push_back(c);
        continue;
      }
      if (!item.empty()) origins.push_back(item);
      item.clear();
    }
  } else if (current && current->rp_id == rp_id) {
    origins = current->origins;
  }
  if (origins.empty()) origins.push_back("https://" + rp_id);
  for (const auto& origin : origins) check_origin(origin, rp_id);
  if (core::join(origins, " ").size() > 2048) throw UsageError("--origins: at most 2048 characters in all");
  repo.set_rp(site_id, rp_id, origins);
}

void print_passkey_rp(db::Database& db, long long site_id) {
  const auto rp = db::PasskeyRepo(db).find_rp(site_id);
  std::printf("passkey_rp_id:   %s\n", rp ? rp->rp_id.c_str() : "(none: passkeys off)");
  if (rp) std::printf("passkey_origins: %s\n", core::join(rp->origins, ", ").c_str());
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

// --verify-email [true|false] (issue 26): sign-up mails a verification
// link and a password login of an unverified address is refused. A bare
// --verify-email means true. --new-device-mail on|off (issue 37): a sign-in
// from a new device mails new-sign-in. --min-password-score 0..4 (issue
// 41): the zxcvbn score a new password must reach, 0 = off. Stored apart
// from the Site row's other columns.
void apply_account_mails(const Args& args, db::Database& db, long long site_id) {
  if (auto v = args.get("verify-email")) db::SiteRepo(db).set_verify_email(site_id, parse_bool("verify-email", *v));
  if (auto v = args.get("new-device-mail")) {
    db::SiteRepo(db).set_new_device_mail(site_id, parse_bool("new-device-mail", *v));
  }
  if (args.get("min-password-score")) {
    const long long score = args.integer("min-password-score", 0);
    if (score < 0 || score > crypto::kMaxPasswordScore) {
      throw UsageError("--min-password-score expects 0 (off) to 4 (the zxcvbn score a new password must reach)");
    }
    db::SiteRepo(db).set_min_password_score(site_id, static_cast<int>(score));
  }
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
  print_signup(env.db, site.id);
}

void apply_options(const Args& args, db::Site& s) {
  if (auto v = args.get("name")) s.name = *v;
  if (auto v = args.get("domain")) s.domain = *v;
  if (auto v = args.get("reset-url")) s.reset_urls = parse_reset_urls(*v);
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
  if (auto v = args.get("disable-email")) s.disable_email = parse_bool("disable-email", *v);
  if (auto v = args.get("email-from")) s.email_from = *v;
  if (args.get("email-cc")) s.email_cc = args.integer("email-cc", 0);
  if (args.get("email-bcc")) s.email_bcc = args.integer("email-bcc", 0);
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
         "  --signup open|closed (whether strangers may register on the hosted pages or through an\n"
         "  upstream provider; default open)\n"
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
  derive_sender(s);
  CommandEnv env(config_path);
  // A new site gets a pool of its own unless told otherwise (design "User pools").
  const long long pool = user_pool_option(args, env.db).value_or(0);
  std::string key = apply_api_key(args.get("api-key").value_or("generate"), s);
  s.user_pool = pool != 0 ? pool : db::SiteRepo(env.db).create_pool();
  long long id = db::SiteRepo(env.db).create(s);
  // The id stays the last line: scripts read it from there.
  if (!key.empty()) std::printf("site_key: %s\n", key.c_str());
  apply_mail_options(args, env.db, id);
  apply_audience(args, env.db, id);
  apply_account_mails(args, env.db, id);
  apply_passkey_rp(args, env.db, id);
  apply_signup(args, env.db, id);
  std::printf("%lld\n", id);
  return 0;
}

int cmd_site_set(const Args& args, const std::string& config_path) {
  args.allow_only(with_mail_options(kSiteOptions));
  CommandEnv env(config_path);
  db::Site site = env.site(args.required_integer("site"));
  apply_options(args, site);
  apply_user_pool(args, env.db, site);
  // A change of sender or of disable_email must not leave a site that mails without one.
  const bool mail_settings = args.get("email-from") || args.get("disable-email");
  if (mail_settings && site.email_from.empty() && !site.disable_email) throw UsageError(kSenderNeeded);
  std::string key;
  if (auto v = args.get("api-key")) key = apply_api_key(*v, site);
  db::SiteRepo(env.db).update(site);
  apply_mail_options(args, env.db, site.id);
  apply_audience(args, env.db, site.id);
  apply_account_mails(args, env.db, site.id);
  apply_passkey_rp(args, env.db, site.id);
  apply_signup(args, env.db, site.id);
  site = env.site(site.id);
  print_site(site);
  if (!key.empty()) std::printf("site_key: %s\n", key.c_str());
  print_site_mail(env.db, site.id);
  print_site_identity(env, site);
  print_passkey_rp(env.db, site.id);
  return 0;
}

int cmd_site_show(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  CommandEnv env(config_path);
  const db::Site site = env.site(args.required_integer("site"));
  print_site(site);
  print_site_mail(env.db, site.id);
  print_site_identity(env, site);
  print_passkey_rp(env.db, site.id);
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
