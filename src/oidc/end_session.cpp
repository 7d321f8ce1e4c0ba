// GET and POST /oidc/N/end-session (OpenID Connect RP-Initiated Logout 1.0).
// With a valid id_token_hint of the browser's own single sign-on user and
// session the sign-out happens at once; otherwise the user is asked first (a
// form with a CSRF token), so a link on another site cannot sign anyone out. post_logout_redirect_uri must be
// registered for the client exactly, or the user sees a page instead: never an open redirect. Clients with a
// front-channel logout URI that this browser's single sign-on session (or the hint) signed into are told by the iframes
// of the page the sign-out answers with (Front-Channel Logout 1.0).

#include <algorithm>

#include "auth/session/sessions.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "core/clock.hpp"
#include "crypto/encoding.hpp"
#include "oidc/clients.hpp"
#include "oidc/flow.hpp"
#include "oidc/handlers.hpp"
#include "oidc/id_token.hpp"
#include "oidc/issuer.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {
namespace {

constexpr std::string_view kLogoutPurpose = "end-session";

void end(core::Context& ctx, const std::string& sid) {
  auto session = db::SessionRepo(ctx.db).find(sid);
  if (session) auth::end_session(ctx, session->table, session->user_id, sid, "oidc_logout");
}

// What a sign-out did: the cookie that clears the single sign-on cookie,
// and the clients to tell (Front-Channel Logout 1.0): each one's logout URI
// with iss and the sid of its ID tokens, and the origins to let be framed.
struct SignedOut {
  std::string cleared_cookie;
  std::vector<std::string> frame_urls;
  std::vector<std::string> frame_origins;
};

// Adds the front-channel logout frame of the grant's client, when it
// registered a URI.
void add_frame(SignedOut& out, db::OAuthRepo& repo, const db::OAuthGrant& grant, const std::string& issuer) {
  auto client = repo.find_client(grant.client_id);
  if (!client || client->frontchannel_logout_uri.empty()) return;
  const std::string url = append_query(client->frontchannel_logout_uri, {{"iss", issuer}, {"sid", grant.session_id}});
  if (std::find(out.frame_urls.begin(), out.frame_urls.end(), url) != out.frame_urls.end()) return;
  out.frame_urls.push_back(url);
  const std::string origin = origin_of(client->frontchannel_logout_uri);
  if (std::find(out.frame_origins.begin(), out.frame_origins.end(), origin) == out.frame_origins.end()) {
    out.frame_origins.push_back(origin);
  }
}

// Ends the browser's single sign-on session, every session granted from it,
// and `hint_sid` (the session the id_token_hint names).
SignedOut sign_out(const http::Request& http, const db::Site& site, const std::string& hint_sid, core::Context& ctx) {
  db::OAuthRepo repo(ctx.db);
  SignedOut out;
  const std::string issuer = issuer_of(ctx.config, site.id);
  const std::string cookie = request_cookie(ctx, http, sso_cookie_name(site));
  if (cookie.size() == 43) {
    const std::string hash = hash_hex(cookie);
    if (auto sso_sid = repo.find_sso(hash, site)) {
      // Single sign-on may span the sites of a pool: each grant's front
      // channel hears its own site's issuer.
      for (const db::OAuthGrant& grant : repo.sso_grants(*sso_sid)) {
        add_frame(out, repo, grant, issuer_of(ctx.config, grant.site_id));
        end(ctx, grant.session_id);
      }
      end(ctx, *sso_sid);
    }
    repo.delete_sso(hash);
  }
  if (!hint_sid.empty()) {
    if (auto grant = repo.find_grant(hint_sid); grant && grant->site_id == site.id) {
      add_frame(out, repo, *grant, issuer);
      end(ctx, hint_sid);
    }
  }
  out.cleared_cookie = set_cookie(ctx, sso_cookie_name(site), "", 0);
  return out;
}

// Whether the hint is this browser's own sign-in: the single sign-on
// session's user, in a session granted from that single sign-on session.
// Anyone else's ID token (an attacker's own, say, on a link or a form of
// another site) is only a request that the user confirms.
bool own_hint(const IdTokenHint& hint, const http::Request& http, const db::Site& site, core::Context& ctx) {
  auto sso = current_sso(http, ctx, site);
  if (!sso || hint.sid.empty() || hint.sub != subject_of(ctx, sso->session.table, sso->user.id)) return false;
  auto grant = db::OAuthRepo(ctx.db).find_grant(hint.sid);
  return grant && grant->site_id == site.id && grant->sso_session_id == sso->session.id;
}

http::Response refuse(const std::string& message) {
  return message_page(400, "Sign-out request not accepted", message);
}

}  // namespace

http::Response end_session(const http::Request& http, core::Context& ctx) {
  const db::Site site = path_site(http, ctx);
  // A POST may carry parameters in its query too (the confirmation form
  // posts back to the URL the page was shown at): one set, a name in both
  // counts as repeated.
  const Params p = parse_params(http.method == "POST" ? http.query + "&" + http.body : http.query);
  if (!p.repeated.empty() || !p.malformed.empty()) return refuse("A parameter is repeated or not well-formed.");
  std::optional<IdTokenHint> hint;
  if (p.get("id_token_hint")) {
    auto keys = auth::current_key_set(ctx);
    hint = read_id_token_hint(p.value("id_token_hint"), keys->published, issuer_of(ctx.config, site.id));
    if (!hint) return refuse("The id_token_hint is not an ID token of this provider.");
  }
  std::string client_id = p.value("client_id");
  if (hint && !client_id.empty() && client_id != hint->aud) return refuse("client_id differs from the ID token's.");
  if (hint) client_id = hint->aud;
  std::string target;
  if (p.get("post_logout_redirect_uri")) {
    auto client = client_id.empty() ? std::nullopt : db::OAuthRepo(ctx.db).find_client(client_id);
    const std::string uri = p.value("post_logout_redirect_uri");
    if (!client || client->site_id != site.id ||
        std::find(client->post_logout_uris.begin(), client->post_logout_uris.end(), uri) ==
            client->post_logout_uris.end()) {
      return refuse("The post_logout_redirect_uri is not registered for this client.");
    }
    target = p.get("state") ? append_query(uri, {{"state", p.value("state")}}) : uri;
  }
  // Without a hint of this browser's own sign-in, only the user's own press
  // of the button signs out.
  const bool own = hint && own_hint(*hint, http, site, ctx);
  if (!own) {
    const std::string browser = request_cookie(ctx, http, kBrowserCookie);
    const std::string expected = browser.size() == 43 ? csrf_token(browser, std::string(kLogoutPurpose)) : "";
    const bool confirmed =
        http.method == "POST" && !expected.empty() && crypto::constant_time_equal(p.value("csrf"), expected);
    if (!confirmed) {
      const std::string fresh = browser.size() == 43 ? browser : random_token();
      http::Response page =
          logout_page(site.name, std::string(http.path) + (http.query.empty() ? "" : "?" + http.query),
                      csrf_token(fresh, std::string(kLogoutPurpose)));
      if (fresh != browser) page.headers.emplace_back("Set-Cookie", set_cookie(ctx, kBrowserCookie, fresh, -1));
      return page;
    }
  }
  const SignedOut done = sign_out(http, site, own ? hint->sid : "", ctx);
  // Clients to tell: a page that frames them, then goes on to the target.
  http::Response r = !done.frame_urls.empty() ? signed_out_page(site.name, target, done.frame_urls, done.frame_origins)
                     : target.empty() ? message_page(200, "Signed out", "You are signed out of " + site.name + ".")
                                      : http::Response{302, "", {{"Location", target}}};
  r.headers.emplace_back("Set-Cookie", done.cleared_cookie);
  return r;
}

}  // namespace svc::oidc
