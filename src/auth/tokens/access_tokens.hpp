#pragma once
// Access tokens as svc issues and checks them: RFC 9068 JWTs signed with the
// newest active key of the key set (auth/tokens/signing_keys.hpp), or, with
// [tokens] access_alg = HS256, the legacy HS256 format of crypto/jwt.hpp.

#include <string>
#include <vector>

#include "auth/session/sessions.hpp"
#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "db/user_repo.hpp"

namespace svc::auth {

// The `aud` of a site's tokens: its audience (site set --audience), else
// https://<domain>, else <issuer>/sites/<id> (a site without a domain).
std::string site_audience(const db::Site& site, const std::string& issuer);

// The `aud` of a token for `app_id`: [tokens] issuer (the service's own)
// for 0, else site_audience of that site (read through ctx.site_cache); a
// site that no longer exists gets <issuer>/sites/<id>.
std::string token_audience(core::Context& ctx, long long app_id);

// Whom an access token issued through OpenID Connect is for (RFC 9068
// 2.2.3; docs/decisions.md "Issue 48: an OAuth client's token names the
// client"): the OAuth client (`client_id`), the scopes it was granted
// (`scope`) and the token's `aud`: the site's audience for a first-party
// client, else the site's OpenID Connect issuer, which no site backend,
// verify_bearer or the PHP client accepts by default.
struct OAuthGrantee {
  std::string client_id;
  std::string scope;
  std::string audience;
};

// A signed access token for `user` of `table` in session `sid` (its `sid`
// claim), valid [auth] access_ttl from the context's clock; with `grantee`,
// the token of that OAuth client (always asymmetric: the provider needs its
// keys anyway). Throws KeySetError (auth/tokens/signing_keys.hpp) when no
// key is active: a deployment error (svc-admin signing-keys rotate --now).
std::string issue_access_token(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                               const std::string& sid, core::Context& ctx, const OAuthGrantee* grantee = nullptr);

// The account token of a sign-in to `app_id` (docs/decisions.md "Issue 36: a
// site's token manages the user's account security"): an access token whose
// `aud` is svc itself ([tokens] issuer) and whose client_id names the site
// (absent for 0), the only kind the account-security routes accept
// (auth/mfa/bearer.hpp). With [tokens] access_alg = HS256 there is no
// audience to tell apart: the legacy access token.
std::string issue_account_token(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                                const std::string& sid, core::Context& ctx);

// Who a valid bearer access token names.
struct Bearer {
  long long user_id = 0;
  std::string table;
};

// The token checked as a backend of `site` is told to (docs/api.md
// "Verifying access tokens"): key set, alg from the key, typ at+jwt, iss,
// aud = the site's audience, exp; also client_id, when present, = site.id
// or a first-party OAuth client of the site. A token issued without an
// appID (aud = issuer, no client_id) passes too: it was made for svc
// itself. A third-party OAuth client's token (aud = the site's OpenID
// Connect issuer) never does. Legacy HS256: the old check (aud svc-access,
// app absent or site.id). nullopt when anything fails.
std::optional<Bearer> verify_bearer(std::string_view token, const db::Site& site, core::Context& ctx);

}  // namespace svc::auth
