#include "auth/password/reset_service.hpp"

#include <algorithm>
#include <string_view>

#include "auth/account_mail.hpp"
#include "auth/auth_common.hpp"
#include "auth/email/mail_caps.hpp"
#include "auth/mfa/proof.hpp"
#include "auth/session/sessions.hpp"
#include "auth/tokens/tokens.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "db/transaction.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/reset_url.hpp"
#include "messaging/builtin_templates.hpp"
#include "messaging/compose.hpp"
#include "messaging/outbox.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {
namespace {

// The reset page: the request's url when it lies within one of the site's
// reset URLs (https, or http to loopback; http/reset_url.hpp), else the
// site's first reset URL, else the server's ready page ([auth] reset_page,
// with "#": the token goes into the fragment). Never the Host header.
std::string reset_base(const std::optional<std::string>& url, const db::Site& site, const std::string& ready_page) {
  if (!url) {
    if (site.reset_urls.empty() && !ready_page.empty()) return ready_page + "#";
    if (site.reset_urls.empty()) {  // !has_reset_page
      throw http::ApiError::validation("url", "url is required: the application has no reset page configured");
    }
    return site.reset_urls.front();
  }
  const auto parsed = http::parse_reset_url(*url);
  if (parsed && !http::reset_transport_ok(*parsed)) throw http::ApiError::validation("url", "url must use https");
  if (!http::reset_url_allowed(*url, site.reset_urls)) {
    throw http::ApiError::validation("url", "url must start with a reset URL this application allows");
  }
  return *url;
}

// The token goes into the query, before any #fragment (a fragment never
// reaches the reset page's server); a base ending in "#" gets it as the
// fragment "#token=...". So does any base that is the ready page itself
// (a site's reset_url or a request's url spelling it out): that page takes
// the token only from the fragment, and nginx answers a query there with a
// redirect that drops it, so the token never lands in a log. The ready
// page's link also names the site ("?site=N", the one query nginx lets
// through), whose name the page shows (issue 36).
// A base holding "{token}" (a site's reset_url or a request's url) says
// itself where the token goes: every "{token}" is replaced, e.g.
// "https://app.example/reset#t={token}" keeps it out of every server log
// (docs/api.md "Where the token goes").
std::string reset_link(const std::string& base, const std::string& token, const std::string& ready_page,
                       long long site_id) {
  static constexpr std::string_view kMark = "{token}";
  if (base.find(kMark) != std::string::npos) {
    std::string link = base;
    for (size_t at = link.find(kMark); at != std::string::npos; at = link.find(kMark, at + token.size())) {
      link.replace(at, kMark.size(), token);
    }
    return link;
  }
  const std::string page_only = base.substr(0, base.find_first_of("?#"));
  if (!ready_page.empty() && core::ascii_lower(page_only) == core::ascii_lower(ready_page)) {
    return http::ready_page_link(ready_page, site_id, token);
  }
  if (!base.empty() && base.back() == '#') return base + "token=" + token;
  size_t hash = base.find('#');
  std::string page = base.substr(0, hash);
  return page + (page.find('?') == std::string::npos ? "?" : "&") + "token=" + token +
         (hash == std::string::npos ? "" : base.substr(hash));
}

// What a reset token is bound to: the password hash it was issued for and
// the address it was mailed to. Once either changes (a reset, a password
// change, a confirmed address change), the token is spent: a link mailed
// to an address the account has left does not take the account back.
std::string reset_fingerprint(const core::Context& ctx, const std::string& password_hash, const std::string& email) {
  return reset_token_fingerprint(ctx.config.keys.reset_key, password_hash, email);
}

// Signed for user id 0 and an empty password when nobody may reset (no such
// user, or one who gets no mail), so the work does not tell registered
// e-mails apart. Signed with the reset tokens' own key (reset_token_keys).
std::string reset_token(core::Context& ctx, const db::User* user, const std::string& table, long long site_id,
                        long long ttl) {
  crypto::Claims c = account_token_claims(ctx, "reset", user, table, site_id, ttl);
  c.pwf = user ? reset_fingerprint(ctx, user->password, user->email) : reset_fingerprint(ctx, "", "");
  return crypto::jwt_sign(c, reset_token_keys(ctx.config.keys.jwt).current);
}

void queue_user_mail(core::Context& ctx, const http::Request& request, const db::Site& site, const db::Template& tmpl,
                     const db::User& user, messaging::MergeValues values) {
  messaging::enqueue(ctx, user_mail(request, site, tmpl, user, std::move(values)));
}

// The reset mail for `user` in the user's language: the site's enabled
// `password-reset` template in that locale (or a fallback of it), else the
// built-in one (messaging::account_template).
db::OutboxEntry reset_mail(core::Context& ctx, const http::Request& request, const db::Site& site, const db::User& user,
                           const std::string& locale, const std::string& link) {
  return account_mail(ctx, request, site, "password-reset", user,
                      {{"link", link}, {"minutes", std::to_string(ctx.config.auth.reset_ttl / 60)}}, locale);
}

void queue_changed_mail(core::Context& ctx, const http::Request& request, long long site_id, const db::User& user) {
  if (site_id <= 0) return;
  auto site = db::SiteRepo(ctx.db).find(site_id);
  auto tmpl = site ? db::NotificationRepo(ctx.db).find_enabled(site->id, "password-changed") : std::nullopt;
  if (site && tmpl && !site->disable_email) queue_user_mail(ctx, request, *site, *tmpl, user, {});
}

}  // namespace

std::string reset_token_fingerprint(std::string_view reset_key, const std::string& password_hash,
                                    const std::string& email) {
  return crypto::password_fingerprint(password_hash + '\n' + core::ascii_lower(email), reset_key);
}

bool may_reset(const core::Context& ctx, const db::User& user) {
  return user.active && (user.password == kInvitedPassword ||
                         crypto::is_verifiable_hash(user.password, !ctx.config.keys.legacy_password_key.empty()));
}

bool has_reset_page(const core::Context& ctx, const db::Site& site) {
  return !site.reset_urls.empty() || !ctx.config.auth.reset_page.empty();
}

void queue_invitation(core::Context& ctx, const http::Request& request, const db::Site& site,
                      const db::TableName& table, const db::User& user) {
  const std::string& ready_page = ctx.config.auth.reset_page;
  const std::string link =
      reset_link(reset_base(std::nullopt, site, ready_page),
                 reset_token(ctx, &user, table.str(), site.id, kInvitationSeconds), ready_page, site.id);
  messaging::enqueue(ctx, account_mail(ctx, request, site, "invitation", user,
                                       {{"link", link}, {"days", std::to_string(kInvitationSeconds / 86400)}}, ""));
}

bool request_password_reset(core::Context& ctx, const http::Request& request, const std::string& email,
                            long long app_id, const db::TableName& table, const std::optional<std::string>& url,
                            bool capped_request) {
  auto site = db::SiteRepo(ctx.db).find(app_id);
  if (!site || !site->active) throw http::ApiError::validation("appID", "appID does not name an application");
  const std::string base = reset_base(url, *site, ctx.config.auth.reset_page);

  auto user = db::UserRepo(ctx.db, table, site->user_pool).find_by_email(email);
  // The e-mail codes' daily cap (auth/email/mail_caps.hpp), counted for a
  // stand-in id when there is no user. Not their gap: someone locked out
  // who asks again because the first mail is slow gets the second at once.
  const long long user_id = user ? user->id : 0;
  const long long subject = user ? user->id : stand_in_id(email);
  const bool capped =
      capped_request && mail_cap_wait(ctx, subject, table.str(), db::SmsEvent::kResetSent, MailCap::kDaily).has_value();
  const bool mail = user && may_reset(ctx, *user) && !site->disable_email && !capped;
  // The same statements whoever asks (docs/decisions.md "Equal work for
  // request-pass"): the template is read and rendered, and the outbox row is
  // inserted inside a transaction, for a stand-in user when there is nobody
  // to mail; only a real recipient's transaction commits. The audit row goes
  // into that transaction, or after the rollback, so each path ends with one
  // commit.
  db::User stand_in;
  stand_in.email = email;
  const db::User& to = mail ? *user : stand_in;
  const std::string link =
      reset_link(base, reset_token(ctx, mail ? &*user : nullptr, table.str(), site->id, ctx.config.auth.reset_ttl),
                 ctx.config.auth.reset_page, site->id);
  // Read for the stand-in too (id 0 matches no row): the same statements either way.
  const std::string locale = db::UserRepo(ctx.db, table).locale(mail ? user->id : 0);
  const db::OutboxEntry entry = reset_mail(ctx, request, *site, to, locale, link);
  const char* detail = !user    ? "unknown e-mail"
                       : mail   ? ""
                       : capped ? "no mail: too many reset mails"
                                : "no mail: inactive, no password or e-mail disabled";
  const bool committed = db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    messaging::enqueue(ctx, entry);
    count_capped_mail(ctx, subject, table.str(), db::SmsEvent::kResetSent);
    if (!mail) return false;  // rolled back: nothing of the stand-in's mail remains
    audit(ctx, request, "reset_requested", table.str(), user_id, site->id, detail);
    tx.commit();
    return true;
  });
  if (!committed) audit(ctx, request, "reset_requested", table.str(), user_id, site->id, detail);
  return committed;
}

long long reset_token_site(core::Context& ctx, const std::string& token) {
  auto verified = crypto::jwt_verify(token, reset_token_keys(ctx.config.keys.jwt), "reset", ctx.clock.now());
  return verified.ok() ? verified.claims.app : 0;
}

void reset_password(core::Context& ctx, const http::Request& request, const std::string& token,
                    const std::optional<db::TableName>& requested, const std::string& password) {
  auto invalid = [] { return http::ApiError::failed(400, "Reset password token has expired or is invalid"); };
  auto verified = crypto::jwt_verify(token, reset_token_keys(ctx.config.keys.jwt), "reset", ctx.clock.now());
  if (!verified.ok()) throw invalid();
  // Our signature covers tbl, but [auth] tables may have lost it since the
  // token was issued: it goes through the allowlist like a request's name.
  auto table = db::allowlisted(verified.claims.tbl, ctx.config.auth.tables);
  if (!table || (requested && requested->str() != table->str())) throw invalid();
  long long user_id = core::parse_id(verified.claims.sub).value_or(0);
  db::UserRepo users(ctx.db, *table);
  auto user = user_id > 0 ? users.find_by_id(user_id) : std::nullopt;
  // The fingerprint of the password hash at issue time: once the password
  // changes (this reset, or any other), the token is spent.
  // A token for an account that may not reset (issued before it was
  // disabled) sets nothing: "!" or NULL stays "can never log in".
  if (!user || !may_reset(ctx, *user) ||
      !crypto::constant_time_equal(verified.claims.pwf, reset_fingerprint(ctx, user->password, user->email))) {
    throw invalid();
  }
  const std::string fresh = ctx.hasher.hash(password);
  db::AddressProof proof;
  {
    // All or nothing: a new password with the old refresh tokens still
    // valid would leave a session an attacker holds alive, and one without
    // its version row would be a change the history does not show.
    db::with_transaction_retry(ctx.db, [&] {
      db::Transaction tx(ctx.db);
      if (!users.replace_password_hash(user->id, user->password, fresh)) throw invalid();  // raced with another reset
      users.bump_token_version(user->id);
      end_sessions(ctx, table->str(), user->id, "password_reset");
      // The link came to the address: it is proven (sql/011).
      proof = users.prove_address(user->id, ctx.clock.now());
      record_user_version(ctx, *table, *user, "update");
      webhooks::enqueue(ctx.db, verified.claims.app, "user.password_reset",
                        db::user_data(table->str(), user->id, user->email));
      tx.commit();
    });
  }
  audit(ctx, request, "reset_done", table->str(), user->id, verified.claims.app);
  drop_unproven_enrolments(ctx, request, verified.claims.app, *table, *user, proof, true);
  queue_changed_mail(ctx, request, verified.claims.app, *user);
}

}  // namespace svc::auth
