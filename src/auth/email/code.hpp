#pragma once
// Sign-in with a code sent by e-mail (issue 26, docs/decisions.md "E-mail
// codes and verified addresses"): POST /auth/email-code mails a 6-digit
// code, POST /auth/email-code/verify trades it for the login reply.
//
// Codes follow the SMS code rules in tables of their own (sql/011,
// db/sms_code_repo.hpp with kEmailCodeTables): only HMAC-SHA256 under a key
// derived from [keys] sms_key of "<site>:<code>" keyed per user is stored;
// [auth] email_code_ttl seconds, email_code_max_attempts tries, one new code
// per email_code_resend_seconds, and per user over a rolling 24 h at most
// email_code_max_sent_daily codes and email_code_max_wrong_daily wrong
// guesses. A code is bound to the site it was asked for. The code never
// reaches a log, audit row or reply.

#include <string>

#include "auth/tokens/tokens.hpp"
#include "core/context.hpp"
#include "db/table_name.hpp"
#include "http/request.hpp"

namespace svc::auth {

struct EmailCodeRequest {
  std::string email;
  long long app_id = 0;  // an active site (else 400 on appID)
  db::TableName table;
};

// Queues the code mail (the site's enabled `email-code` template, else the
// built-in one; high priority) when the address belongs to an active user,
// the site sends e-mail, and neither the resend rule nor the daily cap
// forbids it. Whoever asks, the same statements run (template read and
// rendered, code row stored, outbox row inserted, the cap's event row) in a
// transaction that commits only for a real mail; so neither the reply nor
// the work tells registered addresses apart. Writes an email_code_sent
// audit row, or email_code_requested with the reason nothing was sent.
// Throws http::ApiError 400 on appID when it names no active site.
void send_email_code(const EmailCodeRequest& ask, const http::Request& request, core::Context& ctx);

enum class EmailCodeOutcome {
  kOk,            // session issued: amr ["otp"]
  kSecondFactor,  // the user has a confirmed second factor: mfa_token, no tokens
  kRefused,       // unknown address, inactive user, no live code, wrong code, or the daily
                  // cap on wrong guesses: one reply, so none of them leaks
};

struct EmailCodeResult {
  EmailCodeOutcome outcome = EmailCodeOutcome::kRefused;
  Session session;           // kOk only
  std::string mfa_token;     // kSecondFactor only
  bool has_passkey = false;  // kSecondFactor only: the user may answer with a passkey of the site
};

// Spends one try of the user's live code and compares (db::SmsCodeRepo
// try_code). The right code spends it, proves the address
// (email_verified_at) and signs in: the session, or on a user with a
// confirmed second factor an mfa_token (first factor "otp") for POST
// /auth/mfa/verify. Audits login_ok / login_failed / login_mfa_required.
// REQUIRES: `code` is 6 digits.
EmailCodeResult sign_in_with_email_code(const EmailCodeRequest& ask, const std::string& code,
                                        const http::Request& request, core::Context& ctx);

}  // namespace svc::auth
