#pragma once
// The authorization code flow between the authorization endpoint and the
// redirect back (OpenID Connect Core 3.1.2): who is signed in (the single
// sign-on cookie), whether the user must sign in or consent, and the code.
// Shared by GET/POST /oidc/N/authorize and the hosted pages' forms
// (/auth/oidc/sign-in, /second-factor, /consent).

#include <optional>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/oauth_repo.hpp"
#include "db/session_repo.hpp"
#include "db/site_repo.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::oidc {

// An authorization request lives this long on the hosted pages; a code 60 s.
inline constexpr long long kRequestSeconds = 600;
inline constexpr long long kCodeSeconds = 60;

// The browser's single sign-on session on a site: the svc session the
// hosted sign-in opened, open and not expired, and its user, active.
struct SsoSession {
  db::SessionRow session;
  db::User user;
};
std::optional<SsoSession> current_sso(const http::Request& request, core::Context& ctx, const db::Site& site);
// The auth table the hosted pages sign users in from: the first of [auth]
// tables (the config loader refuses an empty list).
db::TableName sign_in_table(core::Context& ctx);
// The session `sid` as a single sign-on session, when open and its user active.
std::optional<SsoSession> sso_of(core::Context& ctx, const std::string& sid);
// The same of a session row already read (nullopt: none), and of its user
// when that was read with it (else the user is looked up).
std::optional<SsoSession> sso_of(core::Context& ctx, const std::optional<db::SessionRow>& session,
                                 const std::optional<db::User>& user = std::nullopt);

// A session's amr column as a list.
std::vector<std::string> amr_of(const db::SessionRow& session);

// The sub of a user (Core 2: unique and stable within the issuer): the
// user id, prefixed with "<table>:" for any auth table but the first.
std::string subject_of(core::Context& ctx, const std::string& table, long long user_id);

// Where a request stands, and the response the browser gets for it.
struct Step {
  const db::Site& site;
  const db::OAuthClient& client;
  db::OAuthRequest& request;  // id "" until stored
  // Set when the user has just consented on the hosted page, so
  // prompt=consent is satisfied. (A sign-in on the hosted page satisfies
  // prompt=login and max_age by its time: after the request was stored.)
  bool consented_now = false;
  int redirect_status = 302;  // 303 after a form POST
  std::vector<std::string> set_cookies;
};

// The next response: the sign-in page (stored request, redirect), the
// consent page, or the redirect back to the client with a code (or with
// login_required / consent_required for prompt=none).
http::Response proceed(Step& step, const std::optional<SsoSession>& sso, const http::Request& http, core::Context& ctx);

// The redirect back with an error (RFC 6749 4.1.2.1): error,
// error_description, state and iss (RFC 9207).
http::Response error_redirect(const Step& step, const std::string& error, const std::string& description,
                              core::Context& ctx);

// The hosted pages' CSRF token for a request: HMAC-SHA256 keyed with the
// browser cookie over the request id, base64url. A form is accepted only
// from the browser whose cookie the request was bound to.
std::string csrf_token(const std::string& browser_cookie, const std::string& request_id);

// The stored request a hosted page's form names, when it is live, bound to
// this browser and the form's csrf matches; nullopt otherwise.
std::optional<db::OAuthRequest> form_request(const http::Request& http, const std::string& request_id,
                                             const std::string& csrf, core::Context& ctx);

}  // namespace svc::oidc
