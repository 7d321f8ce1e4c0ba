// The flow on the hosted pages. The state, nonce and PKCE verifier live in
// svc_upstream_flows, keyed by the state's hash and bound to the browser by
// the hosted pages' browser cookie (SameSite=Lax). A provider that answers
// by form_post (Apple) posts cross-site, and a Lax cookie does not go with
// a cross-site POST: such a callback is answered with a 303 to the same
// callback by GET with code and state in the query, a top-level navigation
// that does carry the cookie (docs/decisions.md "Upstream sign-in: the
// form_post callback"). The state is spent before anything is checked, so
// a callback is used once whatever its outcome.

#include <map>

#include "auth/mfa/bearer.hpp"
#include "auth/mfa/login.hpp"
#include "auth/mfa/replies.hpp"
#include "auth/session/sessions.hpp"
#include "auth/tokens/tokens.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"
#include "db/oauth_repo.hpp"
#include "db/upstream_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/reset_url.hpp"
#include "http/validate.hpp"
#include "oidc/flow.hpp"
#include "oidc/forms.hpp"
#include "oidc/handlers.hpp"
#include "oidc/issuer.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"
#include "upstream/http_client.hpp"
#include "upstream/id_token.hpp"
#include "upstream/linking.hpp"
#include "upstream/providers.hpp"

namespace svc::oidc {
namespace {

using namespace upstream;

constexpr long long kFlowSeconds = 600;
constexpr long long kApiCodeSeconds = 60;  // the JSON API's one-time code

http::Response redirect(const std::string& location, const std::vector<std::string>& cookies = {}) {
  http::Response r{303, "", {{"Location", location}}};
  for (const std::string& c : cookies) r.headers.emplace_back("Set-Cookie", c);
  return r;
}

http::Response failed(const std::string& message) {
  return message_page(400, "Sign-in did not work", message + " Go back to the application and try again.");
}

std::string pkce_challenge(const std::string& verifier) { return crypto::base64url_encode(crypto::sha256(verifier)); }

// A provider's name as the pages say it ("google" -> "Google").
std::string display_name(std::string name) {
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name;
}

// The site and provider name of /oidc/{site}/upstream/{name}/callback.
bool parse_callback_path(const std::string& path, long long& site_id, std::string& name) {
  constexpr std::string_view kPrefix = "/oidc/";
  constexpr std::string_view kMiddle = "/upstream/";
  constexpr std::string_view kSuffix = "/callback";
  if (path.rfind(kPrefix, 0) != 0) return false;
  const std::size_t middle = path.find(kMiddle, kPrefix.size());
  if (middle == std::string::npos || path.size() < kSuffix.size() ||
      path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return false;
  }
  const std::string id = path.substr(kPrefix.size(), middle - kPrefix.size());
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos) return false;
  site_id = std::stoll(id);
  name = path.substr(middle + kMiddle.size(), path.size() - kSuffix.size() - middle - kMiddle.size());
  return valid_name(name);
}

// The code traded at the token endpoint (client_secret_post; RFC 7636 verifier).
std::optional<rapidjson::Document> exchange_code(core::Context& ctx, const db::UpstreamProvider& provider,
                                                 const db::UpstreamFlow& flow, const std::string& code,
                                                 std::string& problem) {
  auto secret = token_request_secret(ctx.config, provider, ctx.clock.now());
  if (!secret) {
    problem = "The provider's client secret could not be opened.";
    return std::nullopt;
  }
  const std::string form = "grant_type=authorization_code&code=" + url_encode(code) +
                           "&redirect_uri=" + url_encode(callback_uri(ctx.config, provider.site_id, provider.name)) +
                           "&client_id=" + url_encode(provider.client_id) + "&client_secret=" + url_encode(*secret) +
                           "&code_verifier=" + url_encode(flow.verifier);
  const Fetched reply = fetch(ctx.config, {provider.token_url, form, {}});
  if (!reply.ok()) {
    core::LogLine("warn", "upstream_token").str("provider", provider.name).str("detail", reply.detail).emit();
    problem = reply.outcome == FetchOutcome::kTimeout ? "The provider did not answer in time."
                                                      : "The provider refused the sign-in or could not be reached.";
    return std::nullopt;
  }
  auto doc = crypto::parse_json_object(reply.body);
  if (!doc) problem = "The provider's answer was not understood.";
  return doc;
}

// GitHub: the user's id from /user, the primary verified address from /user/emails.
std::optional<UpstreamIdentity> github_identity(core::Context& ctx, const db::UpstreamProvider& provider,
                                                const std::string& access_token, std::string& problem) {
  const std::vector<std::string> headers{"Authorization: Bearer " + access_token, "X-GitHub-Api-Version: 2022-11-28"};
  const Fetched user = fetch(ctx.config, {provider.api_url + "/user", "", headers});
  auto doc = user.ok() ? crypto::parse_json_object(user.body) : std::nullopt;
  if (!doc || !doc->HasMember("id") || !(*doc)["id"].IsInt64()) {
    problem = user.outcome == FetchOutcome::kTimeout ? "The provider did not answer in time."
                                                     : "The provider's user could not be read.";
    return std::nullopt;
  }
  UpstreamIdentity id;
  id.subject = std::to_string((*doc)["id"].GetInt64());
  std::string name;
  crypto::read_string(*doc, "name", name);
  id.given_name = name;
  const Fetched emails = fetch(ctx.config, {provider.api_url + "/user/emails", "", headers});
  rapidjson::Document list;
  if (emails.ok()) list.Parse(emails.body.c_str());
  if (!emails.ok() || list.HasParseError() || !list.IsArray()) {
    problem = "The provider's addresses could not be read.";
    return std::nullopt;
  }
  for (const auto& e : list.GetArray()) {
    if (!e.IsObject() || !e.HasMember("email") || !e["email"].IsString()) continue;
    const bool primary = e.HasMember("primary") && e["primary"].IsBool() && e["primary"].GetBool();
    if (!primary) continue;
    id.email = crypto::json_view(e["email"]);
    id.email_verified = e.HasMember("verified") && e["verified"].IsBool() && e["verified"].GetBool();
  }
  return id;
}

// The identity the callback proves, or nullopt with `problem` set.
std::optional<UpstreamIdentity> identity_of(core::Context& ctx, const db::UpstreamProvider& provider,
                                            const db::UpstreamFlow& flow, const std::string& code,
                                            std::string& problem) {
  auto reply = exchange_code(ctx, provider, flow, code, problem);
  if (!reply) return std::nullopt;
  if (provider.type == "github") {
    std::string access_token;
    if (!crypto::read_string(*reply, "access_token", access_token) || access_token.empty()) {
      problem = "The provider refused the sign-in.";
      return std::nullopt;
    }
    return github_identity(ctx, provider, access_token, problem);
  }
  std::string id_token;
  if (!crypto::read_string(*reply, "id_token", id_token) || id_token.empty()) {
    problem = "The provider sent no ID token.";
    return std::nullopt;
  }
  IdTokenResult checked = verify_id_token(ctx.config, provider, id_token, flow.nonce, ctx.clock.now());
  if (checked.error != IdTokenError::kNone) {
    core::LogLine("warn", "upstream_id_token")
        .str("provider", provider.name)
        .str("detail", describe(checked.error))
        .emit();
    problem = std::string("The provider's answer was refused: ") + describe(checked.error) + ".";
    return std::nullopt;
  }
  return checked.identity;
}

// The waiting authorization request of a hosted flow, with its site and client.
std::optional<Live> live_of(core::Context& ctx, const std::string& request_id) {
  db::OAuthRepo repo(ctx.db);
  auto request = repo.find_request(request_id);
  if (!request || request->done_at || request->expires_at <= ctx.clock.now()) return std::nullopt;
  auto site = active_site(ctx, request->site_id);
  auto client = repo.find_client(request->client_id);
  if (!site || !client) return std::nullopt;
  return Live{*request, *site, *client};
}

// Signs `user` in on the hosted page: a session with amr fed (and the
// second factor first when the user has one), then the flow goes on.
http::Response sign_in_user(Live& live, const Resolved& who, const std::string& browser, const http::Request& http,
                            core::Context& ctx) {
  const std::string csrf = csrf_token(browser, live.request.id);
  if (auth::needs_second_factor(ctx, who.table, who.user.id)) {
    const std::string token = auth::open_mfa_challenge(ctx, who.table, who.user.id, live.site.id, "fed");
    return second_factor_page(200, fields_of(live, csrf, ""), token);
  }
  const auth::SignIn sign_in{ctx.clock.now(), {"fed"}};
  const auth::SessionTicket ticket = auth::open_session(ctx, http, who.user, who.table, live.site.id, sign_in);
  http::Response out = signed_in(live, ticket.id, http, ctx);
  if (!ticket.device_cookie.empty()) out.headers.emplace_back("Set-Cookie", ticket.device_cookie);
  return out;
}

// Stores a flow and returns the provider's authorization URL for it.
std::string provider_url(const db::UpstreamProvider& provider, db::UpstreamFlow flow, const std::string& browser,
                         core::Context& ctx) {
  const std::string state = random_token();
  flow.state_hash = hash_hex(state);
  flow.provider_id = provider.id;
  flow.browser_hash = hash_hex(browser);
  flow.nonce = random_token();
  flow.verifier = random_token();
  flow.expires_at = ctx.clock.now() + kFlowSeconds;
  db::UpstreamRepo(ctx.db).insert_flow(flow);
  std::map<std::string, std::string> q{{"response_type", "code"},
                                       {"client_id", provider.client_id},
                                       {"redirect_uri", callback_uri(ctx.config, flow.site_id, provider.name)},
                                       {"scope", provider.scopes},
                                       {"state", state},
                                       {"code_challenge", pkce_challenge(flow.verifier)},
                                       {"code_challenge_method", "S256"}};
  if (provider.type == "oidc") q["nonce"] = flow.nonce;
  if (provider.response_mode == "form_post") q["response_mode"] = "form_post";
  return append_query(provider.authorize_url, q);
}

// The browser cookie a flow is bound to: the request's, or a new one whose
// Set-Cookie is added to `cookies`.
std::string browser_of(const http::Request& http, core::Context& ctx, std::vector<std::string>& cookies) {
  std::string browser = request_cookie(ctx, http, kBrowserCookie);
  if (browser.size() != 43) {
    browser = random_token();
    cookies.push_back(set_cookie(ctx, kBrowserCookie, browser, -1));
  }
  return browser;
}

// The account centre's flow ends on a page of its own: the identity linked
// to the user who started it, unless it is linked to someone already.
http::Response link_outcome(const db::UpstreamFlow& flow, const db::UpstreamProvider& provider,
                            const UpstreamIdentity& identity, const http::Request& http, core::Context& ctx) {
  const std::string back = "/account/?site=" + std::to_string(flow.site_id);
  auto site = active_site(ctx, flow.site_id);
  auto table = db::allowlisted(flow.link_table, ctx.config.auth.tables);
  auto user = table ? db::UserRepo(ctx.db, *table).find_by_id(flow.link_user_id) : std::nullopt;
  if (!site || !user || !user->active) {
    return linked_page(400, "Nothing was linked", "Your account or this site is not active.", back);
  }
  const std::string taken = "This " + display_name(provider.name) +
                            " account is linked to another user already. Nothing was changed: sign in with it to "
                            "use that user, or unlink it there first.";
  auto known = db::UpstreamRepo(ctx.db).identity(site->user_pool, identity_issuer(provider), identity.subject);
  if (known && (known->table != flow.link_table || known->user_id != flow.link_user_id)) {
    return linked_page(409, "Nothing was linked", taken, back);
  }
  const std::string address = identity.email.empty() ? "" : " (" + identity.email + ")";
  if (known) {
    return linked_page(200, "Already linked",
                       "This " + display_name(provider.name) + " account" + address + " is linked to you already.",
                       back);
  }
  if (!link_identity(ctx, http, site->id, site->user_pool, provider, identity.subject, identity.email, flow.link_table,
                     flow.link_user_id)) {
    return linked_page(409, "Nothing was linked", taken, back);
  }
  return linked_page(
      200, "Account linked",
      "Your " + display_name(provider.name) + " account" + address + " is linked: you can sign in with it now.", back);
}

// The JSON API's flow ends on the site's return_to: a one-time code for
// POST /auth/upstream/exchange, or error and error_description.
http::Response api_outcome(const db::UpstreamFlow& flow, const db::UpstreamProvider& provider,
                           const UpstreamIdentity& identity, const http::Request& http, core::Context& ctx) {
  auto site = active_site(ctx, flow.site_id);
  if (!site) return failed("This site is not active.");
  const Resolved who = resolve(ctx, http, *site, provider, identity, sign_in_table(ctx));
  std::map<std::string, std::string> q;
  if (who.kind == Resolution::kSignIn) {
    const std::string code = random_token();
    db::UpstreamPending pending;
    pending.token_hash = hash_hex(code);
    pending.kind = "code";
    pending.site_id = site->id;
    pending.provider_id = provider.id;
    pending.subject = identity.subject;
    pending.email = identity.email;
    pending.table = who.table;
    pending.user_id = who.user.id;
    pending.expires_at = ctx.clock.now() + kApiCodeSeconds;
    db::UpstreamRepo(ctx.db).insert_pending(pending);
    q["code"] = code;
  } else if (who.kind == Resolution::kLinkFirst) {
    q["error"] = "link_required";
    q["error_description"] = "An account uses this address: sign in with it first, then link " + provider.name + ".";
  } else {
    q["error"] = "access_denied";
    q["error_description"] = who.message;
  }
  return redirect(append_query(flow.return_to, q));
}

}  // namespace

std::string provider_buttons(core::Context& ctx, long long site_id, const std::string& request_id,
                             const std::string& csrf) {
  std::string out;
  for (const auto& p : db::UpstreamRepo(ctx.db).providers(site_id)) {
    const std::string label = display_name(p.name);
    out += fill(
        "<form class=\"upstream\" method=\"post\" action=\"/auth/oidc/upstream\">"
        "<input type=\"hidden\" name=\"request\" value=\"{{request}}\">"
        "<input type=\"hidden\" name=\"csrf\" value=\"{{csrf}}\">"
        "<button type=\"submit\" name=\"provider\" value=\"{{name}}\">Sign in with {{label}}</button></form>\n",
        {{"request", request_id}, {"csrf", csrf}, {"name", p.name}, {"label", label}});
  }
  return out;
}

http::Response upstream_start(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  auto live = live_request(http, p, p.value("csrf"), ctx);
  if (!live) return expired_page();
  auto provider = db::UpstreamRepo(ctx.db).provider(live->site.id, p.value("provider"));
  if (!provider) return failed("This site offers no such way to sign in.");
  db::UpstreamFlow flow;
  flow.site_id = live->site.id;
  flow.request_id = live->request.id;
  return redirect(provider_url(*provider, flow, request_cookie(ctx, http, kBrowserCookie), ctx));
}

http::Response upstream_api_start(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.query);
  const std::string name = http.path.substr(std::string("/auth/upstream/").size(),
                                            http.path.size() - std::string("/auth/upstream//start").size());
  const auto app_id = p.repeated.empty() ? core::parse_id(p.value("appID")) : std::nullopt;
  auto site = app_id ? active_site(ctx, *app_id) : std::nullopt;
  if (!site) return failed("appID names no active site.");
  const std::string return_to = p.value("return_to");
  // The site's reset-URL allowlist says where its pages are (design).
  if (return_to.empty() || return_to.size() > 2048 || !http::reset_url_allowed(return_to, site->reset_urls)) {
    return failed("return_to is not a page of this site.");
  }
  auto provider = db::UpstreamRepo(ctx.db).provider(site->id, name);
  if (!provider) return failed("This site offers no such way to sign in.");
  std::vector<std::string> cookies;
  const std::string browser = browser_of(http, ctx, cookies);
  db::UpstreamFlow flow;
  flow.site_id = site->id;
  flow.return_to = return_to;
  return redirect(provider_url(*provider, flow, browser, ctx), cookies);
}

http::Response upstream_link_start(const http::Request& http, core::Context& ctx) {
  const auth::SignedInUser me = auth::require_signed_in(http, ctx);
  http::Fields fields(http.json);
  auto name = fields.required_string("provider", 32);
  fields.throw_if_errors();
  // A new way to sign in, as a passkey is: a proved address and a recent sign-in.
  auth::require_enrolment_allowed(me, ctx);
  auto site = me.app_id != 0 ? active_site(ctx, me.app_id) : std::nullopt;
  auto provider = site ? db::UpstreamRepo(ctx.db).provider(site->id, *name) : std::nullopt;
  if (!provider) throw http::ApiError::failed(404, "No such provider");
  std::vector<std::string> cookies;
  const std::string browser = browser_of(http, ctx, cookies);
  db::UpstreamFlow flow;
  flow.site_id = site->id;
  flow.link_table = me.table.str();
  flow.link_user_id = me.user.id;
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("url", provider_url(*provider, flow, browser, ctx)).close();
  http::Response out = http::Response::json(200, w.str());
  for (const std::string& c : cookies) out.headers.emplace_back("Set-Cookie", c);
  return out;
}

http::Response upstream_exchange(const http::Request& http, core::Context& ctx) {
  http::Fields fields(http.json);
  auto code = fields.required_string("code", 128);
  fields.throw_if_errors();
  db::UpstreamRepo repo(ctx.db);
  auto pending = repo.take_pending(hash_hex(*code), "code", ctx.clock.now());
  auto table = pending ? db::allowlisted(pending->table, ctx.config.auth.tables) : std::nullopt;
  auto user = table ? db::UserRepo(ctx.db, *table).find_by_id(pending->user_id) : std::nullopt;
  if (!user || !user->active) throw http::ApiError::failed(400, "Invalid or expired code");
  if (auth::needs_second_factor(ctx, table->str(), user->id)) {
    const std::string token = auth::open_mfa_challenge(ctx, table->str(), user->id, pending->site_id, "fed");
    return auth::second_factor_reply(token, false);
  }
  auth::Session session;
  session.user = *user;
  session.tokens =
      auth::issue_tokens(http, *user, table->str(), pending->site_id, auth::SignIn{ctx.clock.now(), {"fed"}}, ctx);
  return auth::session_reply(session, auth::Profile::kWithRole);
}

http::Response upstream_callback(const http::Request& http, core::Context& ctx) {
  long long site_id = 0;
  std::string name;
  if (!parse_callback_path(http.path, site_id, name)) return message_page(404, "Not found", "No such page.");
  const bool posted = http.method == "POST";
  const Params p = parse_params(posted ? http.body : http.query);
  const std::string browser = request_cookie(ctx, http, kBrowserCookie);
  if (!p.repeated.empty() || !p.malformed.empty()) return failed("The provider's answer was malformed.");
  const std::string state = p.value("state");
  if (state.empty() || state.size() > 128) return failed("The provider's answer carried no sign-in.");
  // A cross-site form_post comes without the Lax browser cookie: once more
  // by GET, which brings it.
  if (posted && browser.size() != 43) {
    std::map<std::string, std::string> q{{"state", state}};
    for (const char* key : {"code", "error", "error_description"}) {
      if (auto v = p.get(key)) q[key] = v->substr(0, 2048);
    }
    return redirect(append_query(callback_uri(ctx.config, site_id, name), q));
  }
  db::UpstreamRepo repo(ctx.db);
  auto flow = repo.take_flow(hash_hex(state), ctx.clock.now());
  if (!flow || flow->site_id != site_id) return failed("This sign-in has expired or was used already.");
  auto provider = repo.provider_by_id(flow->provider_id);
  if (!provider || provider->name != name) return failed("This sign-in has expired or was used already.");
  if (browser.size() != 43 || !crypto::constant_time_equal(hash_hex(browser), flow->browser_hash)) {
    return failed("This sign-in was started in another browser, or its cookie is gone.");
  }
  if (p.get("error")) return failed("The provider did not sign you in (" + p.value("error").substr(0, 64) + ").");
  const std::string code = p.value("code");
  if (code.empty() || code.size() > 2048) return failed("The provider's answer carried no code.");
  std::string problem;
  auto identity = identity_of(ctx, *provider, *flow, code, problem);
  if (!identity) return failed(problem);
  if (flow->link_user_id != 0) return link_outcome(*flow, *provider, *identity, http, ctx);
  if (flow->request_id.empty()) return api_outcome(*flow, *provider, *identity, http, ctx);
  auto live = live_of(ctx, flow->request_id);
  if (!live) return expired_page();
  const Resolved who = resolve(ctx, http, live->site, *provider, *identity, sign_in_table(ctx));
  switch (who.kind) {
    case Resolution::kSignIn:
      return sign_in_user(*live, who, browser, http, ctx);
    case Resolution::kLinkFirst: {
      db::UpstreamPending pending;
      pending.token_hash = pending_link_key(live->request.id);
      pending.kind = "link";
      pending.site_id = live->site.id;
      pending.provider_id = provider->id;
      pending.subject = identity->subject;
      pending.email = identity->email;
      pending.table = who.table;
      pending.user_id = who.user.id;
      pending.expires_at = live->request.expires_at;
      repo.insert_pending(pending);
      const std::string csrf = csrf_token(browser, live->request.id);
      PageFields f = fields_of(
          *live, csrf,
          "An account already uses this address. Sign in with your password or another way you use first; your " +
              provider->name + " account is then linked to it.");
      return sign_in_page(409, f, who.user.email);
    }
    case Resolution::kRefused:
      break;
  }
  return failed(who.message);
}

}  // namespace svc::oidc
