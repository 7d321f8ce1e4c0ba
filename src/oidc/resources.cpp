// What a client does with its tokens: userinfo (OpenID Connect Core 5.3, GET
// and POST with a Bearer token), revocation (RFC 7009) and introspection
// (RFC 7662). A token counts only while the svc session it belongs to is
// open and was granted to a client of this issuer.

#include "auth/session/sessions.hpp"
#include "auth/tokens/access_tokens.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/access_token.hpp"
#include "crypto/jwt.hpp"
#include "http/json.hpp"
#include "oidc/clients.hpp"
#include "oidc/flow.hpp"
#include "oidc/handlers.hpp"
#include "oidc/id_token.hpp"
#include "oidc/issuer.hpp"

namespace svc::oidc {
namespace {

// A token of this issuer's clients and what it belongs to.
struct Held {
  bool refresh = false;
  long long iat = 0;
  long long exp = 0;
  db::OAuthGrant grant;
  SsoSession session;
};

std::optional<Held> held_by_grant(const std::string& sid, const db::Site& site, core::Context& ctx) {
  auto grant = sid.empty() ? std::nullopt : db::OAuthRepo(ctx.db).find_grant(sid);
  if (!grant || grant->site_id != site.id) return std::nullopt;
  auto session = sso_of(ctx, sid);
  if (!session) return std::nullopt;
  return Held{false, 0, 0, *grant, *session};
}

// An access token of a client of this issuer: a first-party client's has
// the site's audience, any other client's the issuer's (token.cpp).
std::optional<Held> access_token_of(const std::string& token, const db::Site& site, core::Context& ctx) {
  auto keys = auth::current_key_set(ctx);
  const std::string& issuer = ctx.config.tokens.issuer;
  const std::string own = issuer_of(ctx.config, site.id);
  auto v =
      crypto::verify_access_token(token, keys->published, issuer, auth::site_audience(site, issuer), ctx.clock.now());
  if (v.error == crypto::AccessTokenError::WrongAudience && v.claims.aud == own) {
    v = crypto::verify_access_token(token, keys->published, issuer, own, ctx.clock.now());
  }
  if (!v.ok()) return std::nullopt;
  auto held = held_by_grant(v.claims.sid, site, ctx);
  if (!held || std::to_string(held->session.user.id) != v.claims.sub) return std::nullopt;
  held->iat = v.claims.iat;
  held->exp = v.claims.exp;
  return held;
}

std::optional<Held> refresh_token_of(const std::string& token, const db::Site& site, core::Context& ctx) {
  auto v = crypto::jwt_verify(token, ctx.config.keys.jwt, "refresh", ctx.clock.now());
  if (!v.ok()) return std::nullopt;
  auto held = held_by_grant(v.claims.sid, site, ctx);
  // Only the session's current refresh token is active (rotation).
  if (!held || held->session.session.generation != v.claims.gen) return std::nullopt;
  held->refresh = true;
  held->iat = v.claims.iat;
  held->exp = v.claims.exp;
  return held;
}

std::optional<Held> any_token_of(const std::string& token, const std::string& hint, const db::Site& site,
                                 core::Context& ctx) {
  if (hint == "refresh_token") {
    if (auto h = refresh_token_of(token, site, ctx)) return h;
    return access_token_of(token, site, ctx);
  }
  if (auto h = access_token_of(token, site, ctx)) return h;
  return refresh_token_of(token, site, ctx);
}

http::ApiError invalid_token(std::string_view why) {
  http::ApiError e = oauth_error(401, "invalid_token", why);
  return std::move(e).with_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
}

// The access token of a userinfo request: the Authorization header (RFC
// 6750 2.1), or for POST the form body's access_token (2.2), never both.
std::string bearer_of(const http::Request& http) {
  std::string_view header = http.header("authorization");
  const Params p = http.method == "POST" ? parse_params(http.body) : Params{};
  if (!p.repeated.empty()) throw oauth_error(400, "invalid_request", p.repeated + " is given more than once");
  const bool in_header = header.size() > 7 && core::ascii_lower(header.substr(0, 7)) == "bearer ";
  if (in_header && p.get("access_token")) throw oauth_error(400, "invalid_request", "one access token only");
  if (in_header) return std::string(header.substr(7));
  if (p.get("access_token")) return p.value("access_token");
  http::ApiError e(401, "{\"error\":\"invalid_token\",\"error_description\":\"a Bearer access token is required\"}");
  throw std::move(e).with_header("WWW-Authenticate", "Bearer");
}

}  // namespace

http::Response userinfo(const http::Request& http, core::Context& ctx) {
  const db::Site site = path_site(http, ctx);
  auto held = access_token_of(bearer_of(http), site, ctx);
  if (!held) throw invalid_token("the access token is not valid");
  const db::User& user = held->session.user;
  const std::string& scope = held->grant.scope;
  http::JsonWriter w;
  w.open().kv("sub", subject_of(ctx, held->session.session.table, user.id));
  if (has_scope(scope, "email")) w.kv("email", user.email).kv("email_verified", user.email_verified);
  if (has_scope(scope, "profile")) {
    w.kv("name", core::join({user.first_name, user.last_name}, " ")).kv("given_name", user.first_name);
    w.kv("family_name", user.last_name);
  }
  w.close();
  return http::Response::json(200, w.str());
}

http::Response revoke(const http::Request& http, core::Context& ctx) {
  const db::Site site = path_site(http, ctx);
  const Params p = parse_params(http.body);
  if (!p.repeated.empty()) throw oauth_error(400, "invalid_request", p.repeated + " is given more than once");
  const db::OAuthClient client = authenticate_client(http, p, site.id, ctx);
  if (!p.get("token")) throw oauth_error(400, "invalid_request", "token is required");
  // RFC 7009 2.2: an invalid or unknown token is answered 200 as well. A
  // token of another client is not revoked (2.1).
  auto held = any_token_of(p.value("token"), p.value("token_type_hint"), site, ctx);
  if (held && held->grant.client_id == client.client_id) {
    const db::SessionRow& s = held->session.session;
    auth::end_session(ctx, s.table, s.user_id, s.id, "oauth_revoke");
  }
  return http::Response::json(200, "{}");
}

http::Response introspect(const http::Request& http, core::Context& ctx) {
  const db::Site site = path_site(http, ctx);
  const Params p = parse_params(http.body);
  if (!p.repeated.empty()) throw oauth_error(400, "invalid_request", p.repeated + " is given more than once");
  // RFC 7662 2.1: the caller proves it may ask; a public client cannot.
  const db::OAuthClient client = authenticate_client(http, p, site.id, ctx);
  if (client.is_public) throw oauth_error(401, "invalid_client", "introspection needs a confidential client");
  if (!p.get("token")) throw oauth_error(400, "invalid_request", "token is required");
  auto held = any_token_of(p.value("token"), p.value("token_type_hint"), site, ctx);
  // A third-party client learns only about its own tokens (RFC 7662 4); a
  // first-party one is the site's own backend and may ask about any of the
  // site's (docs/decisions.md "Issue 48: introspection, the SSRF deny list, `__Host-` cookies").
  if (!held || (!client.first_party && held->grant.client_id != client.client_id)) {
    return http::Response::json(200, "{\"active\":false}");
  }
  http::JsonWriter w;
  w.open().kv("active", true).kv("scope", held->grant.scope).kv("client_id", held->grant.client_id);
  w.kv("token_type", held->refresh ? "refresh_token" : "Bearer").kv("exp", held->exp).kv("iat", held->iat);
  w.kv("sub", subject_of(ctx, held->session.session.table, held->session.user.id));
  w.kv("iss", issuer_of(ctx.config, site.id)).kv("sid", held->session.session.id).close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::oidc
