#include "auth/lookup/sms_code.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "auth/auth_common.hpp"
#include "auth/lookup/sealed_user.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "crypto/encoding.hpp"
#include "db/sms_code_repo.hpp"
#include "sms/sms_gateway.hpp"

namespace svc::auth {
namespace {

// The rolling window of [auth] sms_max_sent_daily and sms_max_wrong_daily.
constexpr long long kSmsCapWindow = 24 * 3600;

std::string code_hash(const core::Context& ctx, long long user_id, std::string_view code) {
  return crypto::hmac_sha256(ctx.config.keys.sms_key, std::to_string(user_id) + ":" + std::string(code));
}

// Wipes a buffer that held a code when the scope ends, whichever way it ends.
struct Wipe {
  void* data;
  size_t size;
  ~Wipe() { sodium_memzero(data, size); }
};

}  // namespace

SmsSendResult send_sms_code(const db::User& user, const http::Request& request, core::Context& ctx) {
  if (user.mobile.empty()) return {SmsSendOutcome::kNoMobile, 0};
  const auto& cfg = ctx.config.auth;
  const std::string& table = sealed_user_table(ctx);
  const long long now = ctx.clock.now();
  db::SmsCodeRepo codes(ctx.db);

  if (auto wait = codes.window_full(user.id, table, db::SmsEvent::kSent, cfg.sms.max_sent_daily, kSmsCapWindow, now)) {
    return {SmsSendOutcome::kTooSoon, *wait};  // the daily cap on codes sent: no code drawn, nothing paid
  }

  char code[8];
  Wipe wipe_code{code, sizeof code};
  const unsigned value = ctx.random.uniform(1000000);
  std::snprintf(code, sizeof code, "%06u", value % 1000000);  // zero-padded: 42 -> "000042"
  if (!codes.store(user.id, table, code_hash(ctx, user.id, code), now + cfg.sms.ttl, now, cfg.sms.resend_seconds)) {
    auto last = codes.find(user.id, table);
    return {SmsSendOutcome::kTooSoon, last ? std::max(1LL, last->created_at + cfg.sms.resend_seconds - now) : 1};
  }

  std::string text = ctx.config.sms.message;
  if (size_t at = text.find("[code]"); at != std::string::npos) text.replace(at, 6, code);
  Wipe wipe_text{text.data(), text.size()};
  sms::SmsResult sent = ctx.sms.send(user.mobile, text);
  if (!sent.ok) {
    codes.remove(user.id, table);  // a code nobody received must not stay valid
    core::LogLine("error", "sms_send_failed")
        .str("request_id", request.request_id)
        .num("user_id", user.id)
        .str("detail", sent.detail)
        .emit();
    return {SmsSendOutcome::kGatewayFailed, 0};
  }
  codes.record_sent(user.id, table, kSmsCapWindow, now);
  audit(ctx, request, "sms_code_sent", table, user.id);
  return {SmsSendOutcome::kSent, 0};
}

SmsCheckResult check_sms_code(const db::User& user, const std::string& code, const http::Request& request,
                              core::Context& ctx) {
  const auto& cfg = ctx.config.auth;
  const std::string& table = sealed_user_table(ctx);
  db::SmsCodeRepo codes(ctx.db);
  const db::SmsGuessLimits limits{cfg.sms.max_attempts, cfg.sms.max_wrong_daily, kSmsCapWindow};
  const auto verdict = codes.try_code(user.id, table, code_hash(ctx, user.id, code), limits, ctx.clock.now());
  if (verdict.outcome == db::SmsAttempt::Outcome::kDead) return {SmsCheckOutcome::kDead, 0};
  if (verdict.outcome == db::SmsAttempt::Outcome::kCapped) return {SmsCheckOutcome::kTooMany, 0, verdict.retry_after};
  if (verdict.outcome == db::SmsAttempt::Outcome::kVerified) {
    audit(ctx, request, "sms_code_verified", table, user.id);
    return {SmsCheckOutcome::kVerified, 0};
  }
  audit(ctx, request, "sms_code_failed", table, user.id);
  return {SmsCheckOutcome::kWrongCode, verdict.attempts_left};
}

}  // namespace svc::auth
