#pragma once

#include <optional>
#include <string>

#include "auth/mfa/bearer.hpp"
#include "auth/passkey/json.hpp"
#include "auth/tokens/tokens.hpp"
#include "core/context.hpp"
#include "db/passkey_repo.hpp"
#include "db/table_name.hpp"
#include "http/request.hpp"

// Passkey ceremonies (docs/decisions.md "Passkeys"): each starts with
// options and a challenge_token and ends with the browser's answer. The
// challenge lives server-side (svc_passkey_challenges, only a keyed hash of
// the token stored), bound to the site, the kind of ceremony and (register,
// the MFA step, a sign-in that named an e-mail) the user; single-use and
// kChallengeSeconds long.
namespace svc::auth::passkey {

inline constexpr long long kChallengeSeconds = 300;

struct Ceremony {
  std::string options_json;  // the WebAuthn L3 options JSON
  std::string challenge_token;
};

// The site's relying party. Throws ApiError 400: login's Validation error
// "appID does not name an application" when site_id names no active site
// (0: a token without appID), "Passkeys are not configured for this site:
// rp_id is not set" when the site has no RP id.
db::RelyingParty relying_party(core::Context& ctx, long long site_id);

// Whether an active site offers passkeys (has an RP id): what the account
// centre asks before it shows a passkey button (GET /auth/site).
bool offered(core::Context& ctx, long long site_id);

// POST /auth/passkey/register/options: for the signed-in user on the site of
// their token.
Ceremony open_registration(const SignedInUser& me, core::Context& ctx);

// POST /auth/passkey/register: verifies the answer and stores the passkey
// (audit passkey_added, notice mail). Throws ApiError 401 when the challenge
// is unknown, spent, expired or another user's, 400 Passkey not accepted
// when a check fails, 409 when the credential is already registered.
db::Passkey finish_registration(const SignedInUser& me, const std::string& challenge_token,
                                const RegistrationResponse& response, const std::string& name,
                                const http::Request& request, core::Context& ctx);

// POST /auth/passkey/login/options as a first factor: discoverable
// credentials (no allowCredentials, so the reply says nothing about the
// e-mail); with an e-mail the answer must come from that user's passkey (an
// unknown e-mail binds the challenge to no user: every answer is refused).
Ceremony open_login(core::Context& ctx, long long site_id, const std::optional<std::string>& email,
                    const db::TableName& table);

// The same for the MFA step: the user's passkeys of the mfa_token's site,
// user verification preferred. Throws 401 Second factor expired when the
// token is not live.
Ceremony open_second_factor(core::Context& ctx, const std::string& mfa_token);

enum class LoginOutcome { kOk, kExpired, kRefused, kThrottled };
struct LoginResult {
  LoginOutcome outcome = LoginOutcome::kRefused;
  long long retry_after = 0;  // kThrottled
  Session session;            // kOk
};

// POST /auth/passkey/login: checks the assertion (auth/passkey/verify.hpp),
// the sign count (a counter that does not grow is a cloned authenticator:
// refused, logged and audited passkey_clone_suspected) and issues the tokens.
// amr: "hwk" (device-bound) or "swk" (backup-eligible, i.e. synced), "user"
// when UV was set, and for the MFA step "pwd" first and "mfa" last.
LoginResult finish_login(const std::string& challenge_token, const AuthenticationResponse& response,
                         const http::Request& request, core::Context& ctx);

}  // namespace svc::auth::passkey
