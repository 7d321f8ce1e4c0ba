#include "auth/tokens/tokens.hpp"

#include "auth/user_cache.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"

namespace svc::auth {

TokenPair sign_pair(const db::User& user, const std::string& table, long long app_id, const SignIn& sign_in,
                    const SessionTicket& ticket, core::Context& ctx, const OAuthGrantee* grantee) {
  crypto::Claims c;
  c.sub = std::to_string(user.id);
  c.tbl = table;
  c.app = app_id;
  c.ver = user.token_version;
  c.iat = ctx.clock.now();
  c.typ = "refresh";
  c.exp = c.iat + ctx.config.auth.refresh_ttl;
  c.auth_time = sign_in.auth_time;
  c.amr = sign_in.amr;
  c.sid = ticket.id;
  c.gen = ticket.generation;
  c.email_verified = user.email_verified;
  c.oauth_grant = grantee != nullptr;
  TokenPair pair;
  pair.access_token = issue_access_token(user, table, app_id, sign_in, ticket.id, ctx, grantee);
  pair.refresh_token = crypto::jwt_sign(c, ctx.config.keys.jwt.current);
  pair.sid = ticket.id;
  return pair;
}

TokenPair issue_tokens(const http::Request& request, const db::User& user, const std::string& table, long long app_id,
                       const SignIn& sign_in, core::Context& ctx) {
  SessionTicket ticket = open_session(ctx, request, user, table, app_id, sign_in);
  TokenPair pair = sign_pair(user, table, app_id, sign_in, ticket, ctx);
  pair.account_token =
      app_id == 0 ? pair.access_token : issue_account_token(user, table, app_id, sign_in, ticket.id, ctx);
  pair.device_cookie = ticket.device_cookie;
  return pair;
}

TokenPair issue_tokens(const http::Request& request, const db::User& user, const std::string& table, long long app_id,
                       core::Context& ctx) {
  return issue_tokens(request, user, table, app_id, SignIn{ctx.clock.now(), {"pwd"}}, ctx);
}

crypto::JwtKeyRing reset_token_keys(const crypto::JwtKeyRing& jwt_keys) {
  return crypto::derive_key_ring(jwt_keys, "svc-reset-token-key");
}

void write_tokens(http::JsonWriter& w, const TokenPair& tokens) {
  w.kv("access_token", tokens.access_token).kv("refresh_token", tokens.refresh_token);
  if (!tokens.account_token.empty()) w.kv("account_token", tokens.account_token);
}

http::Response session_reply(const Session& session, Profile profile, bool password_breached) {
  const db::User& user = session.user;
  http::JsonWriter w;
  w.open().kv("status", "Success").open("token");
  write_tokens(w, session.tokens);
  w.open("user").kv("id", user.id).kv("email", user.email);
  w.kv("firstName", user.first_name).kv("lastName", user.last_name);
  if (profile == Profile::kWithRole) w.kv("role", user.role);
  w.close().close();
  if (password_breached) w.kv("password_breached", true);
  w.close();
  http::Response reply = http::Response::json(200, w.str());
  if (!session.tokens.device_cookie.empty()) reply.headers.emplace_back("Set-Cookie", session.tokens.device_cookie);
  return reply;
}

Refreshed refresh_session(const http::Request& request, const std::string& refresh_jwt, core::Context& ctx,
                          const OAuthGrantee* grantee) {
  auto verified = crypto::jwt_verify(refresh_jwt, ctx.config.keys.jwt, "refresh", ctx.clock.now());
  if (verified.error == crypto::JwtError::Expired) return {RefreshOutcome::kExpired, {}};
  // Ours, but from before tokens named their audience: the session ends.
  if (verified.error == crypto::JwtError::WrongAudience && verified.claims.aud.empty()) {
    return {RefreshOutcome::kRevoked, {}};
  }
  if (!verified.ok()) return {RefreshOutcome::kMalformed, {}};
  const crypto::Claims& claims = verified.claims;
  auto table = db::allowlisted(claims.tbl, ctx.config.auth.tables);
  long long user_id = core::parse_id(claims.sub).value_or(0);
  if (!table || user_id <= 0) return {RefreshOutcome::kMalformed, {}};
  if (!claims.sid.empty() && (!is_session_id(claims.sid) || claims.gen <= 0)) return {RefreshOutcome::kMalformed, {}};

  // A refresh token from before issue 23 carries no sign-in: every session
  // then began with a password, no earlier than the token itself.
  SignIn sign_in{claims.auth_time != 0 ? claims.auth_time : claims.iat, claims.amr};
  if (sign_in.amr.empty()) sign_in.amr = {"pwd"};

  // A current token that says how verified its user was (every refresh token
  // since issue 52) is one statement: the rotation, which also checks that
  // the user exists, is active, is at the token's version and as verified,
  // so the new pair needs nothing else of the row. Such a token also says
  // whether its session is an OAuth client's (only the client's token
  // endpoint signs one of those), so the rotation probes no grant. When it
  // misses, the user is read now and the rotation decides why, as for older
  // tokens.
  const bool tried = !claims.sid.empty() && claims.email_verified.has_value();
  if (tried) {
    if (claims.oauth_grant && grantee == nullptr) return {RefreshOutcome::kOAuthGrant, {}};
    const db::UserHold hold{db::UserRepo(ctx.db, *table).unchanged_condition(), claims.ver, *claims.email_verified};
    if (rotate_current(ctx, request, {claims.sid, table->str(), user_id, claims.gen}, true, hold)) {
      db::User held;
      held.id = user_id;
      held.token_version = claims.ver;
      held.email_verified = *claims.email_verified;
      const SessionTicket next{claims.sid, claims.gen + 1};
      return {RefreshOutcome::kOk, sign_pair(held, table->str(), claims.app, sign_in, next, ctx, grantee)};
    }
  }
  // The user must still exist, be active, and not have changed the password
  // since the token was issued (token_version): read now after a missed
  // rotation, otherwise as of at most [auth] user_cache_seconds ago
  // (auth/user_cache.hpp).
  auto user =
      tried ? db::UserRepo(ctx.db, *table).find_by_id(user_id) : find_user_recent(ctx, *table, user_id, claims.ver);
  if (!user || !user->active || user->token_version != claims.ver) return {RefreshOutcome::kRevoked, {}};
  // A refresh token from before sessions opens the session it continues,
  // once. After a missed rotation the plain one runs: it wins for a user
  // verified since the token (or after a lost connection), and otherwise
  // misses again and reads the session row to tell why.
  Rotation rotation =
      claims.sid.empty()
          ? adopt_legacy_token(ctx, request, claims.jti, *user, table->str(), claims.app, sign_in)
          : rotate_session(ctx, request, claims.sid, claims.gen, table->str(), user_id, grantee != nullptr);
  switch (rotation.outcome) {
    case RotateOutcome::kRotated:
    case RotateOutcome::kGrace:
      return {RefreshOutcome::kOk, sign_pair(*user, table->str(), claims.app, sign_in, rotation.ticket, ctx, grantee)};
    case RotateOutcome::kMismatch:
      return {RefreshOutcome::kMalformed, {}};
    case RotateOutcome::kOAuthGrant:
      return {RefreshOutcome::kOAuthGrant, {}};
    case RotateOutcome::kReused:
    case RotateOutcome::kRevoked:
      break;
  }
  return {RefreshOutcome::kSessionRevoked, {}};
}

}  // namespace svc::auth
