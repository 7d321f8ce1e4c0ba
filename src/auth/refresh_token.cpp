#include "auth/handlers.hpp"
#include "auth/tokens.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/jwt.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"

namespace svc::auth {

http::Response refresh_token(const http::Request& request, core::Context& ctx) {
  auto invalid = [] { return http::ApiError::failed(400, "Invalid token format"); };
  auto payload = request.json.FindMember("payload");
  if (payload == request.json.MemberEnd() || !payload->value.IsObject()) throw invalid();
  http::Fields inner(payload->value);
  inner.required_string("access_token", 8192);  // may be expired; only its presence is required
  auto refresh = inner.required_string("refresh_token", 8192);
  if (!inner.ok()) throw invalid();

  auto verified = crypto::jwt_verify(*refresh, ctx.config.keys.jwt, "refresh", ctx.clock.now());
  if (verified.error == crypto::JwtError::Expired) throw http::ApiError::failed(401, "Refresh token has expired");
  if (!verified.ok()) throw invalid();
  const crypto::Claims& claims = verified.claims;
  auto table = db::allowlisted(claims.tbl, ctx.config.auth.tables);
  long long user_id = core::parse_id(claims.sub).value_or(0);
  if (!table || user_id <= 0) throw invalid();

  // The user must still exist, be active, and not have changed the password
  // since the token was issued (token_version).
  auto user = db::UserRepo(ctx.db, *table).find_by_id(user_id);
  if (!user || !user->active || user->token_version != claims.ver) {
    throw http::ApiError::failed(401, "Refresh token is no longer valid");
  }
  TokenPair tokens = issue_tokens(*user, table->str(), claims.app, ctx);
  http::JsonWriter w;
  w.open().kv("status", "Success").open("token");
  write_tokens(w, tokens);
  w.close().close();
  return http::Response::json(200, w.str());
}

http::Response sign_out(const http::Request&, core::Context&) {
  // Tokens are stateless: nothing to revoke server-side; the client drops them.
  return http::Response::json(200, R"({"status":"Success","message":"Signed out successfully"})");
}

}  // namespace svc::auth
