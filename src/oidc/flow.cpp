#include "oidc/flow.hpp"

#include <map>

#include "auth/session/sessions.hpp"
#include "auth/user_cache.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "db/table_name.hpp"
#include "oidc/id_token.hpp"
#include "oidc/issuer.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {
namespace {

http::Response redirect(int status, const std::string& location, const std::vector<std::string>& cookies) {
  http::Response r{status, "", {{"Location", location}}};
  for (const std::string& c : cookies) r.headers.emplace_back("Set-Cookie", c);
  return r;
}

// The browser cookie of this request, made (and set on the response) when
// the browser has none yet.
std::string browser_cookie(const http::Request& http, Step& step, core::Context& ctx) {
  std::string value = request_cookie(ctx, http, kBrowserCookie);
  if (value.size() != 43) {
    value = random_token();
    step.set_cookies.push_back(set_cookie(ctx, kBrowserCookie, value, -1));
  }
  return value;
}

// Stores the request (once) for the hosted pages, bound to this browser.
void store(Step& step, const std::string& browser, core::Context& ctx) {
  if (!step.request.id.empty()) return;
  db::OAuthRequest& r = step.request;
  r.id = random_token();
  r.browser_hash = hash_hex(browser);
  r.created_at = ctx.clock.now();
  r.expires_at = r.created_at + kRequestSeconds;
  db::OAuthRepo(ctx.db).insert_request(r);
}

bool needs_login(const Step& step, const std::optional<SsoSession>& sso, long long now) {
  if (!sso) return true;
  // Signed in on the hosted page since this request was stored.
  if (!step.request.id.empty() && sso->session.auth_time >= step.request.created_at) return false;
  if (has_scope(step.request.prompt, "login")) return true;
  // A sign-in exactly max_age old counts as too old, so max_age=0 always
  // asks again (as prompt=login), whatever second the two fall in.
  return step.request.max_age && now - sso->session.auth_time >= *step.request.max_age;
}

// Whether every scope of `wanted` is in `given` (both space-separated).
bool covers(const std::string& given, const std::string& wanted) {
  for (std::string_view s : core::split_words(wanted)) {
    if (!has_scope(given, s)) return false;
  }
  return true;
}

bool needs_consent(const Step& step, const SsoSession& sso, core::Context& ctx) {
  if (step.client.first_party || step.consented_now) return false;
  if (has_scope(step.request.prompt, "consent")) return true;
  auto given = db::OAuthRepo(ctx.db).consent(sso.session.table, sso.user.id, step.client.client_id);
  return !given || !covers(*given, step.request.scope);
}

// Opens the client's own svc session (its tokens' sid), records what it was
// granted, and stores a code for it. Returns the code.
std::string issue_code(Step& step, const SsoSession& sso, const http::Request& http, core::Context& ctx) {
  const auth::SignIn sign_in{sso.session.auth_time, amr_of(sso.session)};
  const auth::SessionTicket ticket = auth::open_session(ctx, http, sso.user, sso.session.table, step.site.id, sign_in);
  if (!ticket.device_cookie.empty()) step.set_cookies.push_back(ticket.device_cookie);  // a browser new to svc
  db::OAuthRepo repo(ctx.db);
  const long long now = ctx.clock.now();
  const std::string code = random_token();
  const std::string code_hash = hash_hex(code);
  repo.insert_grant(
      {ticket.id, step.site.id, step.client.client_id, step.request.scope, sso.session.id, now, code_hash});
  db::OAuthCode row;
  row.code_hash = code_hash;
  row.site_id = step.site.id;
  row.client_id = step.client.client_id;
  row.redirect_uri = step.request.redirect_uri;
  row.code_challenge = step.request.code_challenge;
  row.scope = step.request.scope;
  row.nonce = step.request.nonce;
  row.session_id = ticket.id;
  row.created_at = now;
  row.expires_at = now + kCodeSeconds;
  repo.insert_code(row);
  return code;
}

PageFields page_fields(const Step& step, const std::string& browser) {
  PageFields f;
  f.site = step.site.name;
  f.client = step.client.name;
  f.request = step.request.id;
  f.csrf = csrf_token(browser, step.request.id);
  return f;
}

}  // namespace

std::vector<std::string> amr_of(const db::SessionRow& session) {
  std::vector<std::string> out;
  for (std::string_view m : core::split_words(session.amr)) out.emplace_back(m);
  return out;
}

db::TableName sign_in_table(core::Context& ctx) {
  return *db::allowlisted(ctx.config.auth.tables.front(), ctx.config.auth.tables);
}

std::optional<SsoSession> sso_of(core::Context& ctx, const std::string& sid) {
  return sso_of(ctx, db::SessionRepo(ctx.db).find(sid));
}

std::optional<SsoSession> sso_of(core::Context& ctx, const std::optional<db::SessionRow>& session,
                                 const std::optional<db::User>& read_with_it) {
  if (!session || session->revoked_at || session->expires_at <= ctx.clock.now()) return std::nullopt;
  auto table = db::allowlisted(session->table, ctx.config.auth.tables);
  if (!table) return std::nullopt;
  auto user = read_with_it && read_with_it->id == session->user_id
                  ? read_with_it
                  : auth::find_user_recent(ctx, *table, session->user_id);
  if (!user || !user->active) return std::nullopt;
  return SsoSession{*session, *user};
}

std::optional<SsoSession> current_sso(const http::Request& request, core::Context& ctx, const db::Site& site) {
  const std::string cookie = request_cookie(ctx, request, sso_cookie_name(site));
  if (cookie.size() != 43) return std::nullopt;
  auto sid = db::OAuthRepo(ctx.db).find_sso(hash_hex(cookie), site);
  if (!sid) return std::nullopt;
  return sso_of(ctx, *sid);
}

std::string subject_of(core::Context& ctx, const std::string& table, long long user_id) {
  const auto& tables = ctx.config.auth.tables;
  const bool first = !tables.empty() && tables.front() == table;
  return first ? std::to_string(user_id) : table + ":" + std::to_string(user_id);
}

std::string csrf_token(const std::string& browser_cookie, const std::string& request_id) {
  return crypto::base64url_encode(crypto::hmac_sha256(browser_cookie, "svc-oidc-csrf:" + request_id));
}

std::optional<db::OAuthRequest> form_request(const http::Request& http, const std::string& request_id,
                                             const std::string& csrf, core::Context& ctx) {
  const std::string browser = request_cookie(ctx, http, kBrowserCookie);
  if (request_id.empty() || request_id.size() > 64 || browser.size() != 43) return std::nullopt;
  auto r = db::OAuthRepo(ctx.db).find_request(request_id);
  if (!r || r->done_at || r->expires_at <= ctx.clock.now()) return std::nullopt;
  if (!crypto::constant_time_equal(hash_hex(browser), r->browser_hash) ||
      !crypto::constant_time_equal(csrf, csrf_token(browser, r->id))) {
    return std::nullopt;
  }
  return r;
}

http::Response error_redirect(const Step& step, const std::string& error, const std::string& description,
                              core::Context& ctx) {
  if (!step.request.id.empty()) db::OAuthRepo(ctx.db).finish_request(step.request.id, ctx.clock.now());
  std::map<std::string, std::string> params{{"error", error}, {"error_description", description}};
  if (!step.request.state.empty()) params["state"] = step.request.state;
  params["iss"] = issuer_of(ctx.config, step.site.id);
  return redirect(step.redirect_status, append_query(step.request.redirect_uri, params), step.set_cookies);
}

http::Response proceed(Step& step, const std::optional<SsoSession>& sso, const http::Request& http,
                       core::Context& ctx) {
  const bool prompt_none = has_scope(step.request.prompt, "none");
  if (needs_login(step, sso, ctx.clock.now())) {
    if (prompt_none) return error_redirect(step, "login_required", "the user is not signed in", ctx);
    store(step, browser_cookie(http, step, ctx), ctx);
    return redirect(step.redirect_status, "/auth/oidc/sign-in?request=" + step.request.id, step.set_cookies);
  }
  if (needs_consent(step, *sso, ctx)) {
    if (prompt_none) return error_redirect(step, "consent_required", "the user has not consented", ctx);
    const std::string browser = browser_cookie(http, step, ctx);
    store(step, browser, ctx);
    http::Response page = consent_page(page_fields(step, browser), sso->user.email, step.request.scope);
    for (const std::string& c : step.set_cookies) page.headers.emplace_back("Set-Cookie", c);
    return page;
  }
  const std::string code = issue_code(step, *sso, http, ctx);
  if (!step.request.id.empty()) db::OAuthRepo(ctx.db).finish_request(step.request.id, ctx.clock.now());
  std::map<std::string, std::string> params{{"code", code}, {"iss", issuer_of(ctx.config, step.site.id)}};
  if (!step.request.state.empty()) params["state"] = step.request.state;
  return redirect(step.redirect_status, append_query(step.request.redirect_uri, params), step.set_cookies);
}

}  // namespace svc::oidc
