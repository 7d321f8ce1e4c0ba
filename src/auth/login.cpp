#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/tokens.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/password_hasher.hpp"
#include "db/throttle_repo.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"

namespace svc::auth {
namespace {

// True when the stored column holds something a password can be checked
// against; anything else (NULL, "", a disabled marker like "!") can never log in.
bool verifiable(const std::string& stored, const core::Context& ctx) {
  if (stored.rfind("$argon2id$", 0) == 0 || stored.rfind("$2y$", 0) == 0 || stored.rfind("$2b$", 0) == 0 ||
      stored.rfind("$2a$", 0) == 0) {
    return true;
  }
  return !ctx.config.keys.legacy_password_key.empty() && stored.size() >= 44 && stored[0] != '$';
}

http::ApiError invalid_credentials() { return http::ApiError::failed(401, "Invalid credentials"); }

}  // namespace

// Exactly one password verification (real or dummy) runs per attempt that
// passes validation and the throttle, whether or not the user exists, so the
// response time does not reveal which e-mails are registered.
http::Response login(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto password = password_field(fields, "password", true);
  auto app_id = fields.optional_id("appID");
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();

  const auto& cfg = ctx.config.auth;
  const long long now = ctx.clock.now();
  const std::string key = core::ascii_lower(*email);
  db::ThrottleRepo throttle(ctx.db);
  if (auto wait = throttle.locked_for(table->str(), key, now)) {
    http::JsonWriter w;
    w.open().kv("status", "Failed").kv("message", "Too many attempts").kv("retry_after", *wait).close();
    throw http::ApiError(429, w.str());
  }

  db::UserRepo users(ctx.db, *table);
  auto user = users.find_by_email(*email);
  if (!user || !verifiable(user->password, ctx)) {
    ctx.hasher.dummy_verify(*password);
    throttle.record_failure(table->str(), key, now, cfg.login_max_failures, cfg.login_window);
    audit(ctx, request, "login_failed", table->str(), user ? user->id : 0, app_id.value_or(0),
          user ? "no verifiable password" : "unknown user");
    if (user) throw http::ApiError::failed(401, "Authentication failed");
    throw invalid_credentials();
  }

  auto verdict = ctx.hasher.verify(user->password, *password);
  if (!verdict.ok) {
    throttle.record_failure(table->str(), key, now, cfg.login_max_failures, cfg.login_window);
    audit(ctx, request, "login_failed", table->str(), user->id, app_id.value_or(0), "wrong password");
    throw invalid_credentials();
  }
  if (!user->active) {
    audit(ctx, request, "login_failed", table->str(), user->id, app_id.value_or(0), "inactive");
    throw http::ApiError::failed(401, "Authentication failed");
  }
  throttle.reset(table->str(), key);
  if (verdict.needs_upgrade) users.replace_password_hash(user->id, user->password, ctx.hasher.hash(*password));
  audit(ctx, request, "login_ok", table->str(), user->id, app_id.value_or(0),
        verdict.needs_upgrade ? "password hash upgraded" : "");

  TokenPair tokens = issue_tokens(*user, table->str(), app_id.value_or(0), ctx);
  http::JsonWriter w;
  w.open().kv("status", "Success").open("token");
  write_tokens(w, tokens);
  w.open("user")
      .kv("id", user->id)
      .kv("email", user->email)
      .kv("firstName", user->first_name)
      .kv("lastName", user->last_name)
      .kv("role", user->role)
      .close()
      .close()
      .close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
