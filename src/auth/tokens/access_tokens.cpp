#include "auth/tokens/access_tokens.hpp"

#include "auth/tokens/signing_keys.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/access_token.hpp"
#include "crypto/jwt.hpp"
#include "db/oauth_repo.hpp"
#include "http/site_cache.hpp"

namespace svc::auth {
namespace {

std::string orphan_audience(const std::string& issuer, long long id) { return issuer + "/sites/" + std::to_string(id); }

// [tokens] access_alg = HS256: the token of before issue 23, unchanged, so
// backends that still verify it with [keys] jwt_secret keep working.
std::string legacy_access_token(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                                const std::string& sid, core::Context& ctx) {
  crypto::Claims c;
  c.sid = sid;
  c.sub = std::to_string(user.id);
  c.typ = "access";
  c.tbl = table;
  c.app = app_id;
  c.ver = user.token_version;
  c.iat = ctx.clock.now();
  c.exp = c.iat + ctx.config.auth.access_ttl;
  c.auth_time = sign_in.auth_time;  // read by the account-security routes (recent sign-in)
  return crypto::jwt_sign(c, ctx.config.keys.jwt.current);
}

std::optional<Bearer> legacy_bearer(std::string_view token, const db::Site& site, core::Context& ctx) {
  auto verified = crypto::jwt_verify(token, ctx.config.keys.jwt, "access", ctx.clock.now());
  if (!verified.ok()) return std::nullopt;
  const crypto::Claims& c = verified.claims;
  auto id = core::parse_id(c.sub);
  if (!id || (c.app != 0 && c.app != site.id)) return std::nullopt;
  return Bearer{*id, c.tbl};
}

// An RFC 9068 access token for `to.audience`; client_id and scope as `to` has them.
std::string signed_access_token(const db::User& user, const std::string& table, const OAuthGrantee& to,
                                const SignIn& sign_in, const std::string& sid, core::Context& ctx) {
  auto keys = current_key_set(ctx);
  if (!keys->signer) throw KeySetError("no active signing key (svc-admin signing-keys rotate --now makes one)");
  crypto::AccessClaims c;
  c.iss = ctx.config.tokens.issuer;
  c.sub = std::to_string(user.id);
  c.aud = to.audience;
  c.client_id = to.client_id;
  c.scope = to.scope;
  c.iat = ctx.clock.now();
  c.exp = c.iat + ctx.config.auth.access_ttl;
  c.auth_time = sign_in.auth_time;
  c.amr = sign_in.amr;
  c.tbl = table;
  c.ver = user.token_version;
  c.email_verified = user.email_verified;
  c.sid = sid;
  return crypto::sign_access_token(c, *keys->signer);
}

// What a site API token names: `audience`, and the site as client_id unless `app_id` is 0.
OAuthGrantee site_api(long long app_id, std::string audience) {
  return {app_id != 0 ? std::to_string(app_id) : "", "", std::move(audience)};
}

// Whether `client_id` is a first-party OAuth client of `site`: its tokens
// carry the site's audience (read only for a token that names such a client).
bool first_party_client(core::Context& ctx, const std::string& client_id, const db::Site& site) {
  auto client = db::OAuthRepo(ctx.db).find_client(client_id);
  return client && client->site_id == site.id && client->first_party;
}

}  // namespace

std::string site_audience(const db::Site& site, const std::string& issuer) {
  if (!site.audience.empty()) return site.audience;
  if (!site.domain.empty()) return "https://" + site.domain;
  return orphan_audience(issuer, site.id);
}

std::string token_audience(core::Context& ctx, long long app_id) {
  const std::string& issuer = ctx.config.tokens.issuer;
  if (app_id == 0) return issuer;
  auto site = http::find_site(ctx, app_id);
  return site ? site_audience(*site, issuer) : orphan_audience(issuer, app_id);
}

std::string issue_access_token(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                               const std::string& sid, core::Context& ctx, const OAuthGrantee* grantee) {
  if (grantee) return signed_access_token(user, table, *grantee, sign_in, sid, ctx);
  if (ctx.config.tokens.legacy_hs256()) return legacy_access_token(user, table, app_id, sign_in, sid, ctx);
  return signed_access_token(user, table, site_api(app_id, token_audience(ctx, app_id)), sign_in, sid, ctx);
}

std::string issue_account_token(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                                const std::string& sid, core::Context& ctx) {
  if (ctx.config.tokens.legacy_hs256()) return legacy_access_token(user, table, app_id, sign_in, sid, ctx);
  return signed_access_token(user, table, site_api(app_id, ctx.config.tokens.issuer), sign_in, sid, ctx);
}

std::optional<Bearer> verify_bearer(std::string_view token, const db::Site& site, core::Context& ctx) {
  if (ctx.config.tokens.legacy_hs256()) return legacy_bearer(token, site, ctx);
  const std::string& issuer = ctx.config.tokens.issuer;
  auto keys = current_key_set(ctx);
  auto verified =
      crypto::verify_access_token(token, keys->published, issuer, site_audience(site, issuer), ctx.clock.now());
  const crypto::AccessClaims& c = verified.claims;
  const bool for_svc = verified.error == crypto::AccessTokenError::WrongAudience && c.aud == issuer &&
                       c.client_id.empty() && ctx.clock.now() < c.exp;
  if (!verified.ok() && !for_svc) return std::nullopt;
  if (!c.client_id.empty() && c.client_id != std::to_string(site.id) && !first_party_client(ctx, c.client_id, site)) {
    return std::nullopt;
  }
  auto id = core::parse_id(c.sub);
  if (!id) return std::nullopt;
  return Bearer{*id, c.tbl};
}

}  // namespace svc::auth
