#include <algorithm>

#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/password_policy.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "crypto/password_hasher.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "messaging/outbox.hpp"
#include "messaging/template.hpp"

namespace svc::auth {
namespace {

// Used when a site has no enabled `password-reset` template of its own.
constexpr const char* kDefaultResetSubject = "Reset your password";
constexpr const char* kDefaultResetContent =
    "<p>Someone asked to reset the password of [email].</p>"
    "<p><a href=\"[link]\">Choose a new password</a> (the link is valid for [minutes] minutes).</p>"
    "<p>If it was not you, you can ignore this e-mail.</p>";

// The reset page: the request's url when its host is one of the site's
// allowed hosts, else the site's reset_url. Never the Host header.
std::string reset_base(const std::optional<std::string>& url, const db::Site& site, http::Fields& fields) {
  if (!url) {
    if (site.reset_url.empty()) fields.add("url", "url is required: the application has no reset page configured");
    return site.reset_url;
  }
  std::string host = core::url_host(*url);
  bool allowed = !host.empty() && url->find_first_of(" \r\n\t\"<>") == std::string::npos &&
                 std::any_of(site.allowed_redirect_hosts.begin(), site.allowed_redirect_hosts.end(),
                             [&](const std::string& h) { return core::ascii_lower(h) == host; });
  if (!allowed) fields.add("url", "url must be on a host this application allows");
  return *url;
}

// Queues `event` to the user through the outbox, rendered from the site's
// template `tmpl` (the sender, BCC list, subject and content are the template's).
void queue_user_mail(core::Context& ctx, const http::Request& request, const db::Site& site, const db::Template& tmpl,
                     const db::User& user, messaging::MergeValues values) {
  values.emplace("email", user.email);
  values.emplace("firstName", user.first_name);
  values.emplace("lastName", user.last_name);
  db::OutboxEntry e;
  e.site_id = site.id;
  e.notification_id = tmpl.id;
  e.event = tmpl.event;
  e.recipient = core::strip_controls(user.email);
  e.from = core::strip_controls(tmpl.from.empty() ? site.email_from : tmpl.from);
  e.bcc = core::strip_controls(tmpl.bcc);
  e.subject = core::utf8_clean(messaging::merge_plain_line(tmpl.subject, values), 998);
  e.body = messaging::merge_html(tmpl.content, values);
  e.request_id = request.request_id;
  messaging::enqueue(ctx, e);
}

void queue_reset_mail(core::Context& ctx, const http::Request& request, const db::Site& site, const db::User& user,
                      const std::string& link) {
  auto tmpl = db::NotificationRepo(ctx.db).find_enabled(site.id, "password-reset");
  if (!tmpl) {
    tmpl = db::Template{};
    tmpl->site_id = site.id;
    tmpl->event = "password-reset";
    tmpl->subject = kDefaultResetSubject;
    tmpl->content = kDefaultResetContent;
  }
  queue_user_mail(ctx, request, site, *tmpl, user,
                  {{"link", link}, {"minutes", std::to_string(ctx.config.auth.reset_ttl / 60)}});
}

}  // namespace

// The reply and the work done are the same whether or not the e-mail is
// registered: one token signature, one committed write (the outbox row, or
// only the audit row), one reply text.
http::Response request_pass(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto app_id = fields.required_id("appID");
  auto url = fields.optional_string("url", 2048);
  fields.throw_if_errors();
  auto site = db::SiteRepo(ctx.db).find(*app_id);
  if (!site || !site->active) throw http::ApiError::validation("appID", "appID does not name an application");
  std::string base = reset_base(url, *site, fields);
  fields.throw_if_errors();

  const auto& table = ctx.config.auth.tables.front();
  auto users = db::UserRepo(ctx.db, *db::allowlisted(table, ctx.config.auth.tables));
  auto user = users.find_by_email(*email);
  crypto::Claims c;
  c.typ = "reset";
  c.sub = std::to_string(user ? user->id : 0);
  c.tbl = table;
  c.app = site->id;
  c.iat = ctx.clock.now();
  c.exp = c.iat + ctx.config.auth.reset_ttl;
  c.pwf = crypto::password_fingerprint(user ? user->password : std::string(), ctx.config.keys.reset_key);
  std::string token = crypto::jwt_sign(c, ctx.config.keys.jwt.current);
  // The token goes into the query, before any #fragment (a fragment never
  // reaches the reset page's server).
  size_t hash = base.find('#');
  std::string page = base.substr(0, hash);
  std::string link = page + (page.find('?') == std::string::npos ? "?" : "&") + "token=" + token +
                     (hash == std::string::npos ? "" : base.substr(hash));

  if (user && user->active && !site->disable_email) queue_reset_mail(ctx, request, *site, *user, link);
  audit(ctx, request, "reset_requested", table, user ? user->id : 0, site->id, user ? "" : "unknown e-mail");

  http::JsonWriter w;
  w.open().kv("status", "Success").kv("message", "An e-mail with reset instructions has been sent to " + *email).close();
  return http::Response::json(200, w.str());
}

http::Response reset_pass(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto password = password_field(fields, "password", false);
  auto confirm = fields.required_string("confirmPassword", kMaxPasswordBytes);
  auto token = fields.required_string("reset_password_token", 8192);
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();
  require_strong_password(*password);
  if (*password != *confirm) throw http::ApiError::validation("confirmPassword", "Passwords do not match");

  auto invalid = [] { return http::ApiError::failed(400, "Reset password token has expired or is invalid"); };
  auto verified = crypto::jwt_verify(*token, ctx.config.keys.jwt, "reset", ctx.clock.now());
  if (!verified.ok() || verified.claims.tbl != table->str()) throw invalid();
  long long user_id = core::parse_id(verified.claims.sub).value_or(0);
  db::UserRepo users(ctx.db, *table);
  auto user = user_id > 0 ? users.find_by_id(user_id) : std::nullopt;
  // The fingerprint of the password hash at issue time: once the password
  // changes (this reset, or any other), the token is spent.
  if (!user || !crypto::constant_time_equal(
                   verified.claims.pwf, crypto::password_fingerprint(user->password, ctx.config.keys.reset_key))) {
    throw invalid();
  }
  std::string fresh = ctx.hasher.hash(*password);
  if (!users.replace_password_hash(user->id, user->password, fresh)) throw invalid();  // raced with another reset
  users.bump_token_version(user->id);
  audit(ctx, request, "reset_done", table->str(), user->id, verified.claims.app);

  if (verified.claims.app > 0) {
    auto site = db::SiteRepo(ctx.db).find(verified.claims.app);
    auto tmpl = site ? db::NotificationRepo(ctx.db).find_enabled(site->id, "password-changed") : std::nullopt;
    if (site && tmpl && !site->disable_email) queue_user_mail(ctx, request, *site, *tmpl, *user, {});
  }
  return http::Response::json(200, R"({"status":"Success","message":"Password reset successfully"})");
}

}  // namespace svc::auth
