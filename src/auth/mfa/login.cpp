#include "auth/mfa/login.hpp"

#include <algorithm>

#include "auth/auth_common.hpp"
#include "auth/mfa/guard.hpp"
#include "auth/mfa/totp_factor.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "db/mfa_repo.hpp"
#include "db/throttle_repo.hpp"

namespace svc::auth {
// The stored form of an mfa_token: it carries 256 random bits, so a plain
// keyed digest is enough to keep the token itself out of the database.
std::string mfa_token_hash(const std::string& token) {
  return crypto::hex_encode(crypto::hmac_sha256("svc-mfa-token", token));
}

bool needs_second_factor(core::Context& ctx, const std::string& table, long long user_id) {
  return db::MfaRepo(ctx.db).has_confirmed_factor(table, user_id);
}

std::string open_mfa_challenge(core::Context& ctx, const std::string& table, long long user_id, long long site_id,
                               const std::string& first_factor) {
  const std::string token = crypto::base64url_encode(crypto::random_bytes(32));
  db::MfaRepo(ctx.db).create_challenge(mfa_token_hash(token), {table, user_id, site_id, first_factor},
                                       ctx.clock.now() + kMfaTokenSeconds);
  return token;
}

std::optional<db::MfaChallenge> find_mfa_challenge(core::Context& ctx, const std::string& mfa_token) {
  return db::MfaRepo(ctx.db).find_live(mfa_token_hash(mfa_token), ctx.clock.now(), kMfaTokenTries);
}

MfaResult verify_second_factor(const MfaAttempt& attempt, const http::Request& request, core::Context& ctx) {
  const char* method = attempt.recovery ? "recovery code" : "totp";
  auto check = [&](const std::string& table, const db::User& user,
                   const db::MfaChallenge& challenge) -> std::optional<std::vector<std::string>> {
    const bool accepted = attempt.recovery ? use_recovery_code(ctx, table, user.id, attempt.code)
                                           : accept_totp(ctx, table, user.id, challenge.factor, attempt.code, false);
    if (!accepted) return std::nullopt;
    return std::vector<std::string>{"otp"};
  };
  return verify_second_factor_with(mfa_token_hash(attempt.mfa_token), method, check, request, ctx);
}

MfaResult verify_second_factor_with(const std::string& hash, const char* method, const SecondFactorCheck& check,
                                    const http::Request& request, core::Context& ctx) {
  const auto& cfg = ctx.config.auth;
  const long long now = ctx.clock.now();
  db::MfaRepo repo(ctx.db);
  auto challenge = repo.claim_try(hash, now, kMfaTokenTries);
  auto table = challenge ? db::allowlisted(challenge->table, cfg.tables) : std::nullopt;
  if (!table) return {};
  db::UserRepo users(ctx.db, *table);
  auto user = users.find_by_id(challenge->user_id);
  if (!user || !user->active) return {};

  MfaAnswer answer(ctx, *table, *user);
  if (auto wait = answer.claim()) return {MfaOutcome::kThrottled, *wait, {}};
  const std::string key = throttle_key(user->email, user->pool_id);
  db::ThrottleRepo throttle(ctx.db);
  if (auto wait = throttle.claim_attempt(table->str(), key, now, cfg.login_max_failures, cfg.login_window)) {
    answer.take_back();
    return {MfaOutcome::kThrottled, *wait, {}};
  }
  auto methods = check(table->str(), *user, *challenge);
  if (!methods) {
    audit(ctx, request, "login_failed", table->str(), user->id, challenge->site_id,
          std::string("wrong second factor (") + method + ")");
    answer.wrong(request, challenge->site_id);
    return {MfaOutcome::kWrong, 0, {}};
  }
  answer.take_back();
  if (!repo.spend_challenge(hash)) return {};  // a parallel request finished this login first
  throttle.reset(table->str(), key);
  audit(ctx, request, "login_ok", table->str(), user->id, challenge->site_id, std::string("second factor: ") + method);
  // RFC 8176 lists each method once: after an e-mail code, "otp" is both steps.
  std::vector<std::string> amr{challenge->first_factor};
  for (const auto& m : *methods) {
    if (std::find(amr.begin(), amr.end(), m) == amr.end()) amr.push_back(m);
  }
  amr.push_back("mfa");
  TokenPair tokens = issue_tokens(request, *user, table->str(), challenge->site_id,
                                  SignIn{now, std::move(amr), challenge->session_event}, ctx);
  return {MfaOutcome::kOk, 0, {std::move(*user), std::move(tokens)}};
}

}  // namespace svc::auth
