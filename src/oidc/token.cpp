// POST /oidc/N/token (RFC 6749 4.1.3 and 6, RFC 7636 4.5, OpenID Connect
// Core 3.1.3): the code for tokens, and a refresh token for new ones. Every
// failure is an RFC 6749 5.2 error and issues nothing; no code or token is
// ever logged (the dispatcher logs only 500s, without the body).

#include "auth/session/sessions.hpp"
#include "auth/tokens/access_tokens.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "auth/tokens/tokens.hpp"
#include "auth/user_cache.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "db/table_name.hpp"
#include "http/json.hpp"
#include "oidc/clients.hpp"
#include "oidc/flow.hpp"
#include "oidc/handlers.hpp"
#include "oidc/id_token.hpp"
#include "oidc/issuer.hpp"

namespace svc::oidc {
namespace {

http::ApiError invalid_grant(std::string_view why) { return oauth_error(400, "invalid_grant", why); }

// A refresh token only for a grant of offline_access, which the consent
// page names, whatever the client (docs/decisions.md "Issue 48: an OAuth
// client's token names the client").
bool gets_refresh_token(const std::string& scope) { return has_scope(scope, "offline_access"); }

// Whom the client's access tokens are for: a first-party client is the
// site's own (the site's audience), any other gets the site's issuer as its
// audience, which the site's backends refuse unless they choose to accept it.
auth::OAuthGrantee grantee_of(const db::Site& site, const db::OAuthClient& client, const std::string& scope,
                              core::Context& ctx) {
  const std::string audience =
      client.first_party ? auth::site_audience(site, ctx.config.tokens.issuer) : issuer_of(ctx.config, site.id);
  return {client.client_id, scope, audience};
}

struct Issued {
  auth::TokenPair pair;
  std::string id_token;
  std::string scope;
};

http::Response token_reply(const Issued& issued, bool with_refresh, core::Context& ctx) {
  http::JsonWriter w;
  w.open().kv("access_token", issued.pair.access_token).kv("token_type", "Bearer");
  w.kv("expires_in", ctx.config.auth.access_ttl);
  if (with_refresh) w.kv("refresh_token", issued.pair.refresh_token);
  w.kv("id_token", issued.id_token).kv("scope", issued.scope).close();
  http::Response r = http::Response::json(200, w.str());
  r.headers.emplace_back("Pragma", "no-cache");
  return r;
}

// The ID token of a pair of session `sid`, signed with the site's current key of the client's algorithm.
std::string id_token_for(const db::Site& site, const db::OAuthClient& client, const SsoSession& s,
                         const std::string& scope, const std::string& nonce, const std::string& access_token,
                         core::Context& ctx) {
  auto keys = auth::current_key_set(ctx);
  const auto alg = crypto::parse_alg(client.id_token_alg);
  const crypto::SigningKey* key = alg ? keys->current(*alg) : nullptr;
  if (!key) {
    throw auth::KeySetError("no active " + client.id_token_alg + " key for client " + client.client_id +
                            " (svc-admin signing-keys rotate --alg " + client.id_token_alg + " --now)");
  }
  IdClaims c;
  c.iss = issuer_of(ctx.config, site.id);
  c.sub = subject_of(ctx, s.session.table, s.user.id);
  c.aud = client.client_id;
  c.iat = ctx.clock.now();
  c.exp = c.iat + ctx.config.auth.access_ttl;
  c.auth_time = s.session.auth_time;
  c.nonce = nonce;
  c.amr = amr_of(s.session);
  c.at_hash = at_hash(access_token, key->alg());
  c.sid = s.session.id;
  return sign_id_token(c, s.user, scope, *key);
}

// Revokes what a code issued when it comes back (RFC 6749 4.1.2: SHOULD).
void revoke_code_session(const std::optional<db::SessionRow>& session, core::Context& ctx) {
  if (session) auth::end_session(ctx, session->table, session->user_id, session->id, "code_replay");
}

bool pkce_ok(const db::OAuthCode& code, const std::string& verifier) {
  if (code.code_challenge.empty()) return verifier.empty();
  return is_pkce_verifier(verifier) &&
         crypto::constant_time_equal(crypto::base64url_encode(crypto::sha256(verifier)), code.code_challenge);
}

http::Response exchange_code(const Params& p, const db::Site& site, const db::OAuthClient& client, core::Context& ctx) {
  const std::string code = p.value("code");
  if (code.empty() || code.size() > 64) throw oauth_error(400, "invalid_request", "code is required");
  db::OAuthRepo repo(ctx.db);
  const std::string hash = hash_hex(code);
  // Taken first, checked after: a code is good for one attempt, whoever
  // makes it; its second presentation ends what the first one issued. The
  // take reads the session and its user in the same statement (for the
  // first allowlisted table, where single-table hosts keep every user): the
  // exchange's statements were most of its cost (docs/decisions.md "Issue
  // 39: one statement for the code exchange").
  db::UserRepo users(ctx.db, sign_in_table(ctx));
  auto taken = repo.take_code(hash, site.id, users);
  if (!taken) {
    auto session = repo.session_of_code(hash, site.id);
    if (!session) throw invalid_grant("unknown code");
    revoke_code_session(session, ctx);
    throw invalid_grant("the code was already used");
  }
  const db::OAuthCode& row = taken->code;
  if (row.client_id != client.client_id) throw invalid_grant("the code is another client's");
  if (row.expires_at <= ctx.clock.now()) throw invalid_grant("the code has expired");
  if (p.value("redirect_uri") != row.redirect_uri) throw invalid_grant("redirect_uri differs from the request's");
  if (!pkce_ok(row, p.value("code_verifier"))) throw invalid_grant("PKCE verification failed");
  if (client.is_public && row.code_challenge.empty()) throw invalid_grant("PKCE is required");
  auto s = sso_of(ctx, taken->session, taken->user);
  if (!s) throw invalid_grant("the session has ended");
  const auth::SignIn sign_in{s->session.auth_time, amr_of(s->session)};
  Issued issued;
  const auth::OAuthGrantee grantee = grantee_of(site, client, row.scope, ctx);
  issued.pair = auth::sign_pair(s->user, s->session.table, site.id, sign_in, {s->session.id, s->session.generation},
                                ctx, &grantee);
  issued.scope = row.scope;
  issued.id_token = id_token_for(site, client, *s, row.scope, row.nonce, issued.pair.access_token, ctx);
  return token_reply(issued, gets_refresh_token(row.scope), ctx);
}

http::Response refresh(const Params& p, const http::Request& http, const db::Site& site, const db::OAuthClient& client,
                       core::Context& ctx) {
  const std::string token = p.value("refresh_token");
  if (token.empty()) throw oauth_error(400, "invalid_request", "refresh_token is required");
  auto verified = crypto::jwt_verify(token, ctx.config.keys.jwt, "refresh", ctx.clock.now());
  if (!verified.ok()) throw invalid_grant("invalid refresh token");
  auto grant = db::OAuthRepo(ctx.db).find_grant(verified.claims.sid);
  if (!grant || grant->client_id != client.client_id || !gets_refresh_token(grant->scope)) {
    throw invalid_grant("invalid refresh token");
  }
  if (const std::string asked = p.value("scope"); !asked.empty()) {
    for (std::string_view s : core::split_words(asked)) {
      if (!has_scope(grant->scope, s)) throw oauth_error(400, "invalid_scope", "scope exceeds the grant");
    }
  }
  const auth::OAuthGrantee grantee = grantee_of(site, client, grant->scope, ctx);
  auth::Refreshed refreshed = auth::refresh_session(http, token, ctx, &grantee);
  if (refreshed.outcome != auth::RefreshOutcome::kOk) throw invalid_grant("the refresh token is revoked or expired");
  auto s = sso_of(ctx, grant->session_id);
  if (!s) throw invalid_grant("the session has ended");
  Issued issued;
  issued.pair = refreshed.tokens;
  issued.scope = grant->scope;
  issued.id_token = id_token_for(site, client, *s, grant->scope, "", issued.pair.access_token, ctx);
  return token_reply(issued, true, ctx);
}

}  // namespace

http::Response token(const http::Request& http, core::Context& ctx) {
  const db::Site site = path_site(http, ctx);
  const Params p = parse_params(http.body);
  if (!p.repeated.empty()) throw oauth_error(400, "invalid_request", p.repeated + " is given more than once");
  if (!p.malformed.empty()) throw oauth_error(400, "invalid_request", p.malformed + " is not well-formed");
  const db::OAuthClient client = authenticate_client(http, p, site.id, ctx);
  const std::string grant_type = p.value("grant_type");
  if (grant_type == "authorization_code") return exchange_code(p, site, client, ctx);
  if (grant_type == "refresh_token") return refresh(p, http, site, client, ctx);
  if (grant_type.empty()) throw oauth_error(400, "invalid_request", "grant_type is required");
  throw oauth_error(400, "unsupported_grant_type", "only authorization_code and refresh_token");
}

}  // namespace svc::oidc
