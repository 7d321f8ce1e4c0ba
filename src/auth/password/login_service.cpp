#include "auth/password/login_service.hpp"

#include "auth/app_id.hpp"
#include "auth/auth_common.hpp"
#include "auth/mfa/login.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "db/throttle_repo.hpp"
#include "db/transaction.hpp"
#include "db/user_repo.hpp"
#include "http/site_cache.hpp"

namespace svc::auth {
namespace {

struct Checked {
  const char* refusal = nullptr;  // the audit detail of a refused attempt; null = granted
  bool needs_upgrade = false;
};

// Every refused attempt costs one Argon2id verify with the configured
// parameters (docs/decisions.md "Equal work for every failed login"): an
// unknown user, an unusable column ("!", NULL), a wrong legacy password (AES
// takes microseconds) and a right password of an inactive account all run
// the dummy verify after whatever cheaper check they got. An Argon2id hash
// with older parameters is its own one verify: no dummy on top (issue 22). A
// granted legacy password pays the same through its Argon2id re-hash instead.
Checked check_password(core::Context& ctx, const db::User* user, const std::string& password) {
  if (!user) {
    ctx.hasher.dummy_verify(password);
    return {"unknown user"};
  }
  const crypto::VerifyResult verdict = ctx.hasher.verify(user->password, password);
  const char* refusal = !verdict.ok ? "wrong password" : !user->active ? "inactive" : nullptr;
  if (refusal && !verdict.full_cost) ctx.hasher.dummy_verify(password);
  return {refusal, verdict.ok && verdict.needs_upgrade};
}

// Whether the login's site (none for app 0) admits verified addresses only.
bool site_requires_verified_email(core::Context& ctx, long long app_id) {
  if (app_id == 0) return false;
  auto site = http::find_site(ctx, app_id);
  return site && site->verify_email;
}

LoginResult refused(LoginOutcome outcome) { return {outcome, 0, {}, {}, false}; }

// Re-hashes a password stored in an outdated format. The new hash and its
// svc_versions row are written together or not at all; when the column no
// longer holds the hash this login verified (a reset got there first), both
// are skipped. Hashing runs before the transaction, so no lock waits on it.
void upgrade_hash(core::Context& ctx, db::UserRepo& users, const db::User& user, const std::string& password) {
  const std::string fresh = ctx.hasher.hash(password);
  db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    if (!users.replace_password_hash(user.id, user.password, fresh)) return;  // rolls back: nothing was written
    record_user_version(ctx, users.table(), user, "update");
    tx.commit();
  });
}

}  // namespace

LoginResult log_in(const LoginAttempt& attempt, const http::Request& request, core::Context& ctx) {
  const auto& cfg = ctx.config.auth;
  const std::string& table = attempt.table.str();
  const long long now = ctx.clock.now();
  const long long pool = user_pool(ctx, attempt.app_id);
  const std::string key = throttle_key(attempt.email, pool);
  db::ThrottleRepo throttle(ctx.db);
  if (auto wait = throttle.claim_attempt(table, key, now, cfg.login_max_failures, cfg.login_window)) {
    return {LoginOutcome::kThrottled, *wait, {}, {}, false};
  }
  db::UserRepo users(ctx.db, attempt.table, pool);
  // The user, whether a second factor guards it and whether the site has an
  // endpoint for session.created, in one statement.
  std::optional<db::LoginUser> found = users.find_for_login(attempt.email, attempt.app_id);
  db::User* user = found ? &found->user : nullptr;
  const Checked checked = check_password(ctx, user, attempt.password);
  if (checked.refusal) {
    audit(ctx, request, "login_failed", table, user ? user->id : 0, attempt.app_id, checked.refusal);
    return refused(LoginOutcome::kInvalidCredentials);
  }
  if (checked.needs_upgrade) upgrade_hash(ctx, users, *user, attempt.password);
  if (!user->email_verified && site_requires_verified_email(ctx, attempt.app_id)) {
    throttle.release(table, key, cfg.login_max_failures);
    audit(ctx, request, "login_failed", table, user->id, attempt.app_id, "email not verified");
    return refused(LoginOutcome::kEmailNotVerified);
  }
  if (found->second_factor) {
    throttle.release(table, key, cfg.login_max_failures);
    audit(ctx, request, "login_mfa_required", table, user->id, attempt.app_id);
    return {LoginOutcome::kSecondFactor,
            0,
            {},
            open_mfa_challenge(ctx, table, user->id, attempt.app_id, "pwd"),
            found->has_passkey};
  }
  throttle.reset(table, key);
  audit(ctx, request, "login_ok", table, user->id, attempt.app_id,
        checked.needs_upgrade ? "password hash upgraded" : "");
  TokenPair tokens =
      issue_tokens(request, *user, table, attempt.app_id, SignIn{ctx.clock.now(), {"pwd"}, found->session_event}, ctx);
  return {LoginOutcome::kOk, 0, {std::move(*user), std::move(tokens)}, {}, false};
}

}  // namespace svc::auth
