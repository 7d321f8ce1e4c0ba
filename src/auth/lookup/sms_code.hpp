#pragma once

#include <string>

#include "core/context.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

// One-time SMS codes for a user of the first [auth] table (the one
// sealed_user() reads). The code is 6 decimal digits drawn from ctx.random;
// only HMAC-SHA256([keys] sms_key, "<user id>:<code>") is stored, one row per
// user (db/sms_code_repo.hpp), valid for [auth] sms_code_ttl seconds and
// [auth] sms_max_attempts guesses. Per user and rolling 24 h, at most [auth]
// sms_max_sent_daily codes go out and [auth] sms_max_wrong_daily wrong
// guesses are heard, across codes (issue 22). The code itself never reaches
// a log, audit row or reply.
namespace svc::auth {

enum class SmsSendOutcome {
  kSent,
  kNoMobile,       // the user has no mobile number; nothing was drawn or stored
  kTooSoon,        // a code was stored less than [auth] sms_resend_seconds ago (it stays), or
                   // [auth] sms_max_sent_daily codes were sent in the last 24 h
  kGatewayFailed,  // ctx.sms refused; the new code was removed again (logged as sms_send_failed)
};

struct SmsSendResult {
  SmsSendOutcome outcome = SmsSendOutcome::kSent;
  long long retry_after = 0;  // kTooSoon: seconds until a new code may be sent (>= 1)
};

// Draws a code, stores it unless the resend rule forbids it (one statement,
// so parallel requests send one SMS), and sends [sms] message with "[code]"
// replaced through ctx.sms to the user's mobile. A sent code replaces the
// previous one and writes an sms_code_sent audit row.
SmsSendResult send_sms_code(const db::User& user, const http::Request& request, core::Context& ctx);

enum class SmsCheckOutcome {
  kVerified,   // the right code, spent now (only one caller can spend it)
  kWrongCode,  // counted as a failed attempt
  kDead,       // no code, expired, spent, or out of attempts; nothing counted
  kTooMany,    // [auth] sms_max_wrong_daily wrong guesses in the last 24 h; nothing counted
};

struct SmsCheckResult {
  SmsCheckOutcome outcome = SmsCheckOutcome::kDead;
  int attempts_left = 0;      // kWrongCode: guesses left after this one (of the code and of the day)
  long long retry_after = 0;  // kTooMany: seconds until one more guess is admitted (>= 1)
};

// Checks `code` (REQUIRES: 6 digits) against the user's current code and
// writes an sms_code_verified or sms_code_failed audit row.
SmsCheckResult check_sms_code(const db::User& user, const std::string& code, const http::Request& request,
                              core::Context& ctx);

}  // namespace svc::auth
