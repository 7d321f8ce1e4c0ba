#pragma once
// The per-account lock on wrong answers to the second factor (issue 36,
// docs/decisions.md "Issue 36: a daily cap on wrong second-factor
// answers"). With the password alone, the login throttle let through about
// 960 TOTP guesses a day; now every [auth] mfa_lock_after-th wrong answer in
// a rolling 24 h locks the account's second factor for mfa_lock_seconds,
// doubled with each further lock (5 wrong: 1 minute, 10: 2, 15: 4), and the
// mfa_max_wrong_daily-th (20) locks it until the oldest of them is 24 h old.
// Every answer to a confirmed factor counts: TOTP codes and recovery codes
// at /auth/mfa/verify, a passkey as the second step, and the codes the
// bearer routes take (disable, new recovery codes). Each lock mails the
// owner (event "mfa-locked").

#include <cstddef>
#include <optional>
#include <vector>

#include "config/config.hpp"
#include "core/context.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// The seconds until an account may answer again, given when its wrong
// answers of the last 24 h happened (`wrong_at`, oldest first, each within
// (now - 24 h, now]); nullopt when it may answer now. Pure.
std::optional<long long> mfa_lock_wait(const std::vector<long long>& wrong_at, long long now,
                                       const config::MfaLockRules& rules);

// Whether the `count`-th wrong answer of the last 24 h begins a lock. Pure.
bool begins_mfa_lock(std::size_t count, const config::MfaLockRules& rules);

// One answer to the user's second factor. claim() counts it as wrong before
// it is checked (so parallel answers each see the ones claimed before them,
// svc_mfa_wrong_answers); take_back() forgets it when it proved right. Both
// later calls do nothing unless claim() counted it. Holds references to its
// arguments: they must outlive it.
class MfaAnswer {
 public:
  MfaAnswer(core::Context& ctx, const db::TableName& table, const db::User& user)
      : ctx_(ctx), table_(table), user_(user) {}
  // nullopt: counted, go on and check the answer. Else the account is
  // locked: the seconds left; nothing was counted.
  std::optional<long long> claim();
  // The answer was right, or not checked after all.
  void take_back();
  // The answer was wrong: it stays counted. When it begins a lock, writes an
  // mfa_locked audit row and queues the owner's notice (auth/mfa/mail.hpp,
  // from the mail settings of `site_id`).
  void wrong(const http::Request& request, long long site_id);

 private:
  core::Context& ctx_;
  const db::TableName& table_;
  const db::User& user_;
  long long id_ = 0;       // the counted row, 0 = none
  std::size_t count_ = 0;  // wrong answers of the last 24 h with this one
};

}  // namespace svc::auth
