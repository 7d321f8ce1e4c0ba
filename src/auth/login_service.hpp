#pragma once

#include <string>

#include "auth/tokens.hpp"
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
  kThrottled,             // locked by earlier failures; nothing was verified
  kInvalidCredentials,    // unknown e-mail or wrong password
  kAuthenticationFailed,  // a user without a verifiable password, or an inactive one
};

struct LoginResult {
  LoginOutcome outcome = LoginOutcome::kInvalidCredentials;
  long long retry_after = 0;  // seconds until the lock ends; kThrottled only
  Session session;            // kOk only
};

// Runs exactly one password verification (the real one, or a dummy of the
// same cost when the user is unknown or has no verifiable hash) for every
// attempt that is not throttled, so timing does not reveal which e-mails are
// registered. A failure counts toward the throttle (except for an inactive
// user with the right password); success resets it, re-hashes a password
// stored in an outdated format (with its svc_versions "update" row, in one
// transaction; a database error there propagates and the hash stays as it
// was), and issues tokens. Every outcome but kThrottled writes a login_ok /
// login_failed audit row.
LoginResult log_in(const LoginAttempt& attempt, const http::Request& request, core::Context& ctx);

}  // namespace svc::auth
