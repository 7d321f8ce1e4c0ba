#include "auth/email/mail_caps.hpp"

#include <algorithm>
#include <functional>

#include "config/config.hpp"
#include "core/clock.hpp"

namespace svc::auth {
namespace {

constexpr long long kDay = 24 * 3600;

}  // namespace

long long stand_in_id(const std::string& email) {
  return (1LL << 62) + static_cast<long long>(std::hash<std::string>{}(email)&0x3fffffffULL);
}

std::optional<long long> mail_cap_wait(core::Context& ctx, long long user_id, const std::string& table,
                                       db::SmsEvent kind, MailCap cap) {
  const auto& rules = ctx.config.auth.email_code;
  const long long now = ctx.clock.now();
  db::SmsCodeRepo events(ctx.db, db::kEmailCodeTables);
  const auto daily = events.window_full(user_id, table, kind, rules.max_sent_daily, kDay, now);
  const auto soon = cap == MailCap::kDailyAndGap
                        ? events.window_full(user_id, table, kind, 1, rules.resend_seconds, now)
                        : std::nullopt;
  if (!daily && !soon) return std::nullopt;
  return std::max(daily.value_or(0), soon.value_or(0));
}

void count_capped_mail(core::Context& ctx, long long user_id, const std::string& table, db::SmsEvent kind) {
  db::SmsCodeRepo(ctx.db, db::kEmailCodeTables).record_sent(user_id, table, kDay, ctx.clock.now(), kind);
}

}  // namespace svc::auth
