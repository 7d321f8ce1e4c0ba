#include "auth/tokens.hpp"

#include "config/config.hpp"
#include "core/clock.hpp"
#include "crypto/jwt.hpp"

namespace svc::auth {

TokenPair issue_tokens(const db::User& user, const std::string& table, long long app_id, core::Context& ctx) {
  const auto& auth = ctx.config.auth;
  const auto& key = ctx.config.keys.jwt.current;
  crypto::Claims c;
  c.sub = std::to_string(user.id);
  c.tbl = table;
  c.app = app_id;
  c.ver = user.token_version;
  c.iat = ctx.clock.now();
  c.typ = "access";
  c.exp = c.iat + auth.access_ttl;
  TokenPair pair;
  pair.access_token = crypto::jwt_sign(c, key);
  c.typ = "refresh";
  c.exp = c.iat + auth.refresh_ttl;
  c.jti.clear();
  pair.refresh_token = crypto::jwt_sign(c, key);
  return pair;
}

void write_tokens(http::JsonWriter& w, const TokenPair& tokens) {
  w.kv("access_token", tokens.access_token).kv("refresh_token", tokens.refresh_token);
}

}  // namespace svc::auth
