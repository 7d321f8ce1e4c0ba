#include "auth/login_service.hpp"

#include "auth/auth_common.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "db/throttle_repo.hpp"
#include "db/user_repo.hpp"

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

LoginResult refused(LoginOutcome outcome) { return {outcome, 0, {}}; }

// Re-hashes a password stored in an outdated format. The new hash and its
// svc_versions row are written together or not at all; when the column no
// longer holds the hash this login verified (a reset got there first), both
// are skipped. Hashing runs before the transaction, so no lock waits on it.
void upgrade_hash(core::Context& ctx, db::UserRepo& users, const db::User& user, const std::string& password) {
  const std::string fresh = ctx.hasher.hash(password);
  db::Transaction tx(ctx.db);
  if (!users.replace_password_hash(user.id, user.password, fresh)) return;  // rolls back: nothing was written
  record_user_version(ctx, users.table(), user, "update");
  tx.commit();
}

}  // namespace

LoginResult log_in(const LoginAttempt& attempt, const http::Request& request, core::Context& ctx) {
  const auto& cfg = ctx.config.auth;
  const std::string& table = attempt.table.str();
  const long long now = ctx.clock.now();
  const std::string key = core::ascii_lower(attempt.email);
  db::ThrottleRepo throttle(ctx.db);
  if (auto wait = throttle.claim_attempt(table, key, now, cfg.login_max_failures, cfg.login_window)) {
    return {LoginOutcome::kThrottled, *wait, {}};
  }
  auto failed = [&](long long user_id, const char* why) {
    audit(ctx, request, "login_failed", table, user_id, attempt.app_id, why);
  };

  db::UserRepo users(ctx.db, attempt.table);
  auto user = users.find_by_email(attempt.email);
  if (!user || !verifiable(user->password, ctx)) {
    ctx.hasher.dummy_verify(attempt.password);
    if (!user) {
      failed(0, "unknown user");
      return refused(LoginOutcome::kInvalidCredentials);
    }
    failed(user->id, "no verifiable password");
    return refused(LoginOutcome::kAuthenticationFailed);
  }

  auto verdict = ctx.hasher.verify(user->password, attempt.password);
  if (!verdict.ok) {
    failed(user->id, "wrong password");
    return refused(LoginOutcome::kInvalidCredentials);
  }
  if (!user->active) {
    failed(user->id, "inactive");
    return refused(LoginOutcome::kAuthenticationFailed);
  }
  throttle.reset(table, key);
  if (verdict.needs_upgrade) upgrade_hash(ctx, users, *user, attempt.password);
  audit(ctx, request, "login_ok", table, user->id, attempt.app_id,
        verdict.needs_upgrade ? "password hash upgraded" : "");
  TokenPair tokens = issue_tokens(*user, table, attempt.app_id, ctx);
  return {LoginOutcome::kOk, 0, {std::move(*user), std::move(tokens)}};
}

}  // namespace svc::auth
