#pragma once
// The e-mail codes' caps ([auth] email_code_resend_seconds and
// email_code_max_sent_daily, issue 36) applied to other mail a request can
// make svc send to an address: reset mail (/auth/request-pass and the
// hosted "forgot" form) and e-mail change mail. Each kind is counted apart
// in svc_email_code_events, per user and auth table, shared by every worker
// and host.

#include <optional>
#include <string>

#include "core/context.hpp"
#include "db/sms_code_repo.hpp"

namespace svc::auth {

// A user id for an address nobody may get mail for: 2^62 + 30 bits of the
// address's hash (real ids are AUTO_INCREMENT values far below 2^62).
// Requests for different unknown addresses then lock different rows of the
// events, as those for different users do, instead of queueing on one.
long long stand_in_id(const std::string& email);

// How a kind of mail is held back: the daily cap alone, or also the gap.
enum class MailCap { kDaily, kDailyAndGap };

// Seconds until one more mail of `kind` to user `user_id` of `table` may go
// (max_sent_daily in 24 h; with kDailyAndGap also one per resend_seconds);
// nullopt when it may go now. A stand-in id is read like anyone's, so the
// work is the same.
std::optional<long long> mail_cap_wait(core::Context& ctx, long long user_id, const std::string& table,
                                       db::SmsEvent kind, MailCap cap);

// Counts one mail of `kind` (in the caller's transaction, if any).
void count_capped_mail(core::Context& ctx, long long user_id, const std::string& table, db::SmsEvent kind);

}  // namespace svc::auth
