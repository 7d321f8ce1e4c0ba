#include <rapidjson/document.h>

#include <optional>

#include "auth/handlers.hpp"
#include "auth/session/sessions.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "auth/user_cache.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/access_token.hpp"
#include "crypto/jwt.hpp"
#include "db/session_repo.hpp"
#include "db/table_name.hpp"

namespace svc::auth {
namespace {

// The session a token names: its user (table, id) and id ("" for a token
// from before sessions), and what the token says of itself: its
// token_version, generation (a refresh token's; 0 for an access token) and
// whether it has expired.
struct NamedSession {
  std::string table;
  long long user_id = 0;
  std::string sid;
  long long ver = 0;
  long long gen = 0;
  bool expired = true;
};

std::optional<NamedSession> named(const std::string& tbl, const std::string& sub, const std::string& sid,
                                  core::Context& ctx) {
  auto table = db::allowlisted(tbl, ctx.config.auth.tables);
  auto user_id = core::parse_id(sub);
  if (!table || !user_id) return std::nullopt;
  return NamedSession{table->str(), *user_id, sid};
}

std::optional<NamedSession> named(const crypto::Claims& c, bool expired, core::Context& ctx) {
  auto out = named(c.tbl, c.sub, c.sid, ctx);
  if (out) {
    out->ver = c.ver;
    out->gen = c.typ == "refresh" ? c.gen : 0;
    out->expired = expired;
  }
  return out;
}

// A refresh token of ours, expired or not (signing out with an old one
// still ends its session).
std::optional<NamedSession> from_refresh_token(std::string_view token, core::Context& ctx) {
  auto v = crypto::jwt_verify(token, ctx.config.keys.jwt, "refresh", ctx.clock.now());
  if (!v.ok() && v.error != crypto::JwtError::Expired) return std::nullopt;
  return named(v.claims, !v.ok(), ctx);
}

// A Bearer access token of ours for any audience, expired or not: the
// signature and issuer are checked (an audience no token has stops the
// check there, with the claims filled in).
std::optional<NamedSession> from_bearer(const http::Request& request, core::Context& ctx) {
  std::string_view header = request.header("authorization");
  if (header.size() <= 7 || core::ascii_lower(header.substr(0, 7)) != "bearer ") return std::nullopt;
  std::string_view token = header.substr(7);
  if (ctx.config.tokens.legacy_hs256()) {
    auto v = crypto::jwt_verify(token, ctx.config.keys.jwt, "access", ctx.clock.now());
    if (!v.ok() && v.error != crypto::JwtError::Expired) return std::nullopt;
    return named(v.claims, !v.ok(), ctx);
  }
  auto keys = current_key_set(ctx);
  auto v = crypto::verify_access_token(token, keys->published, ctx.config.tokens.issuer, "", ctx.clock.now());
  if (v.error != crypto::AccessTokenError::WrongAudience) return std::nullopt;
  auto out = named(v.claims.tbl, v.claims.sub, v.claims.sid, ctx);
  if (out) {
    out->ver = v.claims.ver;
    out->expired = ctx.clock.now() >= v.claims.exp;
  }
  return out;
}

// Whether the token may end the user's other sessions (docs/decisions.md
// "Issue 48: an OAuth client's token names the client"): it has not expired, its session
// is open and the user's, it is that session's current refresh token (or
// the one just before) or an access token, the password has not changed
// since (token_version), and the session is not an OAuth client's (a
// client's token ends only its own session; the site's own sign-in ends
// the others).
bool may_end_others(const NamedSession& s, core::Context& ctx) {
  if (s.expired || s.sid.empty()) return false;
  auto row = db::SessionRepo(ctx.db).find_with_grant(s.sid);
  if (!row || row->revoked_at || row->expires_at <= ctx.clock.now() || row->table != s.table ||
      row->user_id != s.user_id || row->oauth_grant || (s.gen != 0 && s.gen + 1 < row->generation)) {
    return false;
  }
  auto table = db::allowlisted(s.table, ctx.config.auth.tables);
  auto user = find_user_recent(ctx, *table, s.user_id, s.ver);
  return user && user->active && user->token_version == s.ver;
}

// The body's string member `name`, "" when the body is not a JSON object or
// lacks it (sign-out answers the same whatever comes).
std::string body_string(const rapidjson::Document& body, const char* name) {
  if (!body.IsObject()) return "";
  auto it = body.FindMember(name);
  return it != body.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : "";
}

}  // namespace

http::Response sign_out(const http::Request& request, core::Context& ctx) {
  rapidjson::Document body;
  body.Parse<rapidjson::kParseIterativeFlag>(request.body.data(), request.body.size());  // no recursion: any depth
  const std::string refresh = body_string(body, "refreshToken");
  std::optional<NamedSession> session = refresh.empty() ? std::nullopt : from_refresh_token(refresh, ctx);
  if (!session) session = from_bearer(request, ctx);
  if (session) {
    std::string scope = body_string(body, "scope");
    if ((scope == "global" || scope == "others") && !may_end_others(*session, ctx)) scope = "";
    if (scope == "global") {
      end_sessions(ctx, session->table, session->user_id, "sign_out");
    } else if (scope == "others") {
      end_sessions(ctx, session->table, session->user_id, "sign_out", session->sid);
    } else {
      end_session(ctx, session->table, session->user_id, session->sid, "sign_out");
    }
  }
  return http::Response::json(200, R"({"status":"Success","message":"Signed out successfully"})");
}

}  // namespace svc::auth
