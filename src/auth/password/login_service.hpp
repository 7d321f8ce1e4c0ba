#pragma once

#include <string>

#include "auth/tokens/tokens.hpp"
#include "core/context.hpp"
#include "db/table_name.hpp"
#include "http/request.hpp"

// Checking a password login: the failed-login throttle, the user lookup, the
// password check, the hash upgrade, the audit row and the tokens.
namespace svc::auth {

struct LoginAttempt {
  std::string email;     // as typed; the throttle keys on its ASCII-lowercased form
  std::string password;  // already within the length bounds of password_field()
  db::TableName table;
  long long app_id = 0;  // 0 when the request names no application
};

enum class LoginOutcome {
  kOk,
  kThrottled,           // locked by earlier failures; nothing was verified
  kInvalidCredentials,  // unknown e-mail, wrong password, no usable password, or an inactive
                        // account (whatever the password): one reply, so none of them leaks
  kSecondFactor,        // right password of a user with a confirmed second factor: no tokens yet
  kEmailNotVerified,    // right password, but the site (site set --verify-email) requires a verified
                        // address and this one is not (issue 26): no tokens
};

struct LoginResult {
  LoginOutcome outcome = LoginOutcome::kInvalidCredentials;
  long long retry_after = 0;  // seconds until the lock ends; kThrottled only
  Session session;            // kOk only
  std::string mfa_token;      // kSecondFactor only (auth/mfa/login.hpp)
  bool has_passkey = false;   // kSecondFactor only: the user may answer with a passkey of the site
};

// Spends one Argon2id verify with the configured parameters on every attempt
// that is not throttled and fails (the real verify, or a dummy one after a
// cheaper check: unknown user, a column that holds no usable hash, a legacy
// bcrypt/AES hash, an inactive account), so neither timing nor reply reveals
// which e-mails are registered or which password an inactive account has.
// Every failure counts toward the throttle; success resets it, re-hashes a password
// stored in an outdated format (with its svc_versions "update" row, in one
// transaction; a database error there propagates and the hash stays as it
// was), and issues tokens. Every outcome but kThrottled writes a login_ok /
// login_failed audit row. A user with a confirmed second factor gets an
// mfa_token instead (audit login_mfa_required): the attempt's throttle count
// is taken back but earlier failures stay, so wrong codes that follow add up
// with them (auth/mfa/login.hpp). On a site with verify_email, a right
// password of an unverified address gets kEmailNotVerified (audit
// login_failed "email not verified"; the attempt's throttle count is taken
// back), checked before the second factor.
LoginResult log_in(const LoginAttempt& attempt, const http::Request& request, core::Context& ctx);

}  // namespace svc::auth
