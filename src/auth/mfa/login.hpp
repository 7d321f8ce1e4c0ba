#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "auth/tokens/tokens.hpp"
#include "core/context.hpp"
#include "db/mfa_repo.hpp"
#include "http/request.hpp"

// The second step of a login (docs/decisions.md "Second factor: TOTP and
// recovery codes"): a right password of a user with a confirmed factor earns
// an mfa_token instead of tokens; POST /auth/mfa/verify trades it and a code
// for the session.
namespace svc::auth {

inline constexpr long long kMfaTokenSeconds = 300;
inline constexpr int kMfaTokenTries = 5;

// Whether the user must give a second factor after the password.
bool needs_second_factor(core::Context& ctx, const std::string& table, long long user_id);

// A new mfa_token (32 random bytes, base64url) bound to the user, its table
// and the site, valid kMfaTokenSeconds from the context's clock for
// kMfaTokenTries tries. Only its hash is stored. `first_factor` is the amr
// of the step that earned it ("pwd" after a password, "otp" after an e-mail
// code); the session's amr begins with it.
std::string open_mfa_challenge(core::Context& ctx, const std::string& table, long long user_id, long long site_id,
                               const std::string& first_factor = "pwd");

struct MfaAttempt {
  std::string mfa_token;
  std::string code;  // a TOTP code, or a recovery code when `recovery`
  bool recovery = false;
};

enum class MfaOutcome {
  kOk,
  kExpired,    // unknown, expired, spent or out of tries: log in again
  kWrong,      // the code was not accepted (one try spent)
  kThrottled,  // the account's login throttle or its second factor is locked; nothing was checked
};

struct MfaResult {
  MfaOutcome outcome = MfaOutcome::kExpired;
  long long retry_after = 0;  // kThrottled only
  Session session;            // kOk only: amr [first factor,"otp","mfa"] ("pwd" or "otp" first)
};

// Spends one try of the mfa_token (before the code is looked at), counts the
// answer toward the account's lock on wrong second-factor answers
// (auth/mfa/guard.hpp; kThrottled while it holds) and the attempt in the
// account's login throttle (svc_login_throttle, so wrong codes lock the
// account like wrong passwords), then checks the code. Success
// spends the token, resets the throttle and issues the tokens; every
// checked outcome writes a login_ok / login_failed audit row.
MfaResult verify_second_factor(const MfaAttempt& attempt, const http::Request& request, core::Context& ctx);

// Checks one answer to the second step for the user the mfa_token names
// (`challenge`: the token's row, with the user's TOTP factor); returns the
// RFC 8176 methods the answer proved (e.g. {"otp"}), or nullopt when it is
// not accepted.
using SecondFactorCheck = std::function<std::optional<std::vector<std::string>>(
    const std::string& table, const db::User& user, const db::MfaChallenge& challenge)>;

// The stored form of an mfa_token (svc_mfa_challenges.token_hash).
std::string mfa_token_hash(const std::string& mfa_token);

// verify_second_factor, for the mfa_token whose hash is given, with any kind
// of answer (a passkey assertion:
// auth/passkey/service.hpp): the same tries, throttle, audit rows and
// tokens; `method` names the answer in the audit detail. amr is "pwd", the
// check's methods, then "mfa".
MfaResult verify_second_factor_with(const std::string& mfa_token_hash, const char* method,
                                    const SecondFactorCheck& check, const http::Request& request, core::Context& ctx);

// Who a live mfa_token (not spent, not expired, tries left) was issued to,
// without spending a try; nullopt otherwise.
std::optional<db::MfaChallenge> find_mfa_challenge(core::Context& ctx, const std::string& mfa_token);

}  // namespace svc::auth
