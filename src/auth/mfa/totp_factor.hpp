#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/mfa_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"

// A user's second factor: the TOTP secret (RFC 6238, crypto/totp.hpp, sealed
// with [keys] mfa_key in svc_mfa_factors) and the recovery codes (only their
// keyed hashes are stored). docs/decisions.md "Second factor: TOTP and
// recovery codes".
namespace svc::auth {

inline constexpr int kRecoveryCodeCount = 10;

struct TotpSetup {
  std::string secret;       // base32, as authenticator apps take it
  std::string otpauth_url;  // otpauth://totp/<issuer>:<email>?secret=…&issuer=…
};

// Draws a new secret for `user` and stores it unconfirmed (replacing an
// unconfirmed one). nullopt when the user already has a confirmed factor.
// `issuer`: the name the authenticator app shows.
std::optional<TotpSetup> set_up_totp(core::Context& ctx, const db::TableName& table, const db::User& user,
                                     const std::string& issuer);

// Stores `secret` (raw bytes, e.g. a factor moved from another system) as
// the user's confirmed factor, replacing an unconfirmed one; codes of the
// current step on are accepted. False (nothing changed) when the user
// already has a confirmed factor.
bool import_totp(core::Context& ctx, const db::TableName& table, const db::User& user, const std::string& secret);

// Accepts a 6-digit code of the user's factor at the context's clock (±1
// time step) once: the step it matched must be newer than every step
// accepted before (one conditional UPDATE decides, so a code is never
// accepted twice, also not by parallel requests). `confirming`: the factor
// must be unconfirmed and becomes confirmed; else it must be confirmed.
bool accept_totp(core::Context& ctx, const std::string& table, long long user_id, const std::string& code,
                 bool confirming);
// The same against the user's factor as the caller read it (nullopt: none),
// as a sign-in's second step reads it with its challenge.
bool accept_totp(core::Context& ctx, const std::string& table, long long user_id,
                 const std::optional<db::TotpFactor>& factor, const std::string& code, bool confirming);

// Draws a new set of recovery codes ("xxxxx-xxxxx", 50 random bits each),
// stores their hashes in place of the old set and returns them (shown once).
std::vector<std::string> issue_recovery_codes(core::Context& ctx, const std::string& table, long long user_id);

// Spends one of the user's unused recovery codes (case, spaces and dashes
// ignored); false when none matches.
bool use_recovery_code(core::Context& ctx, const std::string& table, long long user_id, const std::string& code);

// Whether `code` has the shape of a TOTP code: exactly 6 ASCII digits.
bool is_totp_code(const std::string& code);

}  // namespace svc::auth
