#include "auth/mfa/guard.hpp"

#include <algorithm>

#include "auth/auth_common.hpp"
#include "auth/mfa/mail.hpp"
#include "core/clock.hpp"
#include "db/mfa_answer_repo.hpp"

namespace svc::auth {
namespace {

constexpr long long kDay = 24 * 3600;

}  // namespace

std::optional<long long> mfa_lock_wait(const std::vector<long long>& wrong_at, long long now,
                                       const config::MfaLockRules& rules) {
  const std::size_t count = wrong_at.size();
  const auto cap = static_cast<std::size_t>(rules.max_wrong_daily);
  // At the cap: until the oldest of the last `cap` answers leaves the window.
  if (count >= cap) return std::max(1LL, wrong_at[count - cap] + kDay - now);
  const std::size_t locks = count / static_cast<std::size_t>(rules.lock_after);
  if (locks == 0) return std::nullopt;
  // The latest lock began with the answer that completed it; it doubles
  // with each lock before it, and never outlasts the window.
  const long long began = wrong_at[locks * static_cast<std::size_t>(rules.lock_after) - 1];
  const long long length =
      std::min(kDay, static_cast<long long>(rules.lock_seconds) << std::min<std::size_t>(locks - 1, 20));
  if (began + length <= now) return std::nullopt;
  return began + length - now;
}

bool begins_mfa_lock(std::size_t count, const config::MfaLockRules& rules) {
  return count > 0 && (count % static_cast<std::size_t>(rules.lock_after) == 0 ||
                       count == static_cast<std::size_t>(rules.max_wrong_daily));
}

std::optional<long long> MfaAnswer::claim() {
  const long long now = ctx_.clock.now();
  db::MfaAnswerRepo repo(ctx_.db);
  id_ = repo.add(table_.str(), user_.id, now);
  const auto before = repo.times_before(table_.str(), user_.id, id_, now - kDay);
  if (auto wait = mfa_lock_wait(before, now, ctx_.config.auth.mfa_lock)) {
    take_back();
    return wait;
  }
  count_ = before.size() + 1;
  return std::nullopt;
}

void MfaAnswer::take_back() {
  if (id_ == 0) return;
  db::MfaAnswerRepo(ctx_.db).remove(table_.str(), user_.id, id_, ctx_.clock.now() - kDay);
  id_ = 0;
}

void MfaAnswer::wrong(const http::Request& request, long long site_id) {
  if (id_ == 0 || !begins_mfa_lock(count_, ctx_.config.auth.mfa_lock)) return;
  audit(ctx_, request, "mfa_locked", table_.str(), user_.id, site_id,
        std::to_string(count_) + " wrong answers in 24 h");
  queue_mfa_mail(ctx_, request, site_id, table_, user_, MfaChange::kLocked);
}

}  // namespace svc::auth
