#include "app/routes.hpp"

#include <iterator>
#include <vector>

#include "app/metrics_endpoint.hpp"
#include "auth/handlers.hpp"
#include "http/health.hpp"
#include "manage_api/handlers.hpp"
#include "messaging/handlers.hpp"
#include "oidc/handlers.hpp"
#include "push/handlers.hpp"
#include "upstream/handlers.hpp"

namespace svc::app {

using http::kAuthBodyLimit;
using http::kHashing;
using http::kJsonBody;
using http::kMessageBodyLimit;
using http::kNoFlags;
using http::kOutbound;
using http::Route;

// Form bodies of the OpenID Connect endpoints and hosted pages (issue 39).
constexpr size_t kFormLimit = 16 * 1024;

// The one route table. Dispatch checks method, body limit, JSON body and site
// authentication from these rows, so handlers never repeat those checks.
std::span<const Route> routes() {
  static const Route kApiRoutes[] = {
      {"GET", "/health", &http::health, nullptr, 0, kNoFlags},
      // Prometheus scrapes; nginx admits only the scrapers' addresses.
      {"GET", "/metrics", &metrics_endpoint, nullptr, 0, kNoFlags},
      // The access tokens' public keys (docs/api.md "Verifying access tokens").
      {"GET", "/.well-known/jwks.json", &auth::jwks, nullptr, 0, kNoFlags},
      {"POST", "/auth/login", &auth::login, nullptr, kAuthBodyLimit, kJsonBody | kHashing},
      {"POST", "/auth/sign-up", &auth::sign_up, nullptr, kAuthBodyLimit, kJsonBody | kHashing},
      {"POST", "/auth/refresh-token", &auth::refresh_token, nullptr, kAuthBodyLimit, kJsonBody},
      // Sign-out answers Success whatever the body: read without kJsonBody, so
      // a body that is not JSON is no error; it only names what to revoke.
      {"POST", "/auth/sign-out", &auth::sign_out, nullptr, kAuthBodyLimit, kNoFlags},
      {"POST", "/auth/request-pass", &auth::request_pass, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/reset-pass", &auth::reset_pass, nullptr, kAuthBodyLimit, kJsonBody | kHashing},
      {"POST", "/auth/user-email", &auth::user_email, nullptr, kAuthBodyLimit, kJsonBody},
      // kOutbound: waits on the SMS gateway, push service or merge SQL; nginx
      // sends these to the outbound pool (svc-locations.conf).
      {"POST", "/auth/user-sms-code", &auth::user_sms_code, nullptr, kAuthBodyLimit, kJsonBody | kOutbound},
      {"POST", "/auth/verify-sms-code", &auth::verify_sms_code, nullptr, kAuthBodyLimit, kJsonBody},
      // Second factor. Setup reads no body; disable may verify a password.
      {"POST", "/auth/mfa/totp/setup", &auth::mfa_totp_setup, nullptr, 0, kNoFlags},
      {"POST", "/auth/mfa/totp/confirm", &auth::mfa_totp_confirm, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/mfa/verify", &auth::mfa_verify, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/mfa/recovery-codes", &auth::mfa_recovery_codes, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/mfa/disable", &auth::mfa_disable, nullptr, kAuthBodyLimit, kJsonBody | kHashing},
      // E-mail as identity (issue 26).
      {"POST", "/auth/email-code", &auth::email_code, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/email-code/verify", &auth::email_code_verify, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/verify-email", &auth::verify_email, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/verify-email/resend", &auth::verify_email_resend, nullptr, kAuthBodyLimit, kJsonBody},
      // Passkeys. register/options and list read no body.
      {"POST", "/auth/passkey/register/options", &auth::passkey_register_options, nullptr, 0, kNoFlags},
      {"POST", "/auth/passkey/register", &auth::passkey_register, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/passkey/login/options", &auth::passkey_login_options, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/passkey/login", &auth::passkey_login, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/passkey/list", &auth::passkey_list, nullptr, 0, kNoFlags},
      {"POST", "/auth/passkey/rename", &auth::passkey_rename, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/passkey/delete", &auth::passkey_delete, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/sessions", &auth::sessions_list, nullptr, 0, kNoFlags},
      {"POST", "/auth/sessions/revoke", &auth::session_revoke, nullptr, kAuthBodyLimit, kJsonBody},
      // The new-device mail's "this wasn't me" page posts its token here.
      {"POST", "/auth/sessions/not-me", &auth::sessions_not_me, nullptr, kAuthBodyLimit, kJsonBody},
      // Account self-service (issue 38): password, address, deletion, export.
      {"POST", "/auth/password/change", &auth::password_change, nullptr, kAuthBodyLimit, kJsonBody | kHashing},
      {"POST", "/auth/email/change", &auth::email_change, nullptr, kAuthBodyLimit, kJsonBody | kHashing},
      {"POST", "/auth/email/change/confirm", &auth::email_change_confirm, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/email/change/undo", &auth::email_change_undo, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/account/delete", &auth::account_delete, nullptr, kAuthBodyLimit, kJsonBody | kHashing},
      {"POST", "/auth/account/export", &auth::account_export, nullptr, 0, kNoFlags},
      {"POST", "/auth/getFolderLimits", &auth::get_folder_limits, nullptr, kAuthBodyLimit, kJsonBody},
      // The name of an active site, which the ready pages (/account/) show (issue 36).
      {"GET", "/auth/site", &auth::site_info, nullptr, 0, kNoFlags},
      // OpenID Connect provider (issue 39, docs/oidc.md): '*' is the site id,
      // the issuer being {[tokens] oidc_issuer}/oidc/{site id}. Form bodies,
      // OAuth 2.0 replies and errors; HTML pages where a browser is sent.
      {"GET", "/oidc/*/.well-known/openid-configuration", &oidc::discovery, nullptr, 0, kNoFlags},
      {"GET", "/oidc/*/jwks", &auth::jwks, nullptr, 0, kNoFlags},
      {"GET", "/oidc/*/authorize", &oidc::authorize, nullptr, 0, kNoFlags},
      {"POST", "/oidc/*/authorize", &oidc::authorize, nullptr, kFormLimit, kNoFlags},
      {"POST", "/oidc/*/token", &oidc::token, nullptr, kFormLimit, kNoFlags},
      {"GET", "/oidc/*/userinfo", &oidc::userinfo, nullptr, 0, kNoFlags},
      {"POST", "/oidc/*/userinfo", &oidc::userinfo, nullptr, kFormLimit, kNoFlags},
      {"POST", "/oidc/*/revoke", &oidc::revoke, nullptr, kFormLimit, kNoFlags},
      {"POST", "/oidc/*/introspect", &oidc::introspect, nullptr, kFormLimit, kNoFlags},
      {"GET", "/oidc/*/end-session", &oidc::end_session, nullptr, 0, kNoFlags},
      {"POST", "/oidc/*/end-session", &oidc::end_session, nullptr, kFormLimit, kNoFlags},
      // The hosted sign-in page and its form; nginx serves the path from the
      // hashing pool (the POST runs Argon2id), so both rows carry the flag.
      {"GET", "/auth/oidc/sign-in", &oidc::sign_in_form, nullptr, 0, kHashing},
      {"POST", "/auth/oidc/sign-in", &oidc::sign_in_submit, nullptr, kFormLimit, kHashing},
      {"POST", "/auth/oidc/second-factor", &oidc::second_factor_submit, nullptr, kFormLimit, kNoFlags},
      {"POST", "/auth/oidc/passkey", &oidc::passkey_submit, nullptr, kFormLimit, kNoFlags},
      {"POST", "/auth/oidc/consent", &oidc::consent_submit, nullptr, kFormLimit, kNoFlags},
      {"GET", "/auth/oidc/forgot", &oidc::forgot_form, nullptr, 0, kNoFlags},
      {"POST", "/auth/oidc/forgot", &oidc::forgot_submit, nullptr, kFormLimit, kNoFlags},
      {"GET", "/auth/oidc/email-code", &oidc::email_code_form, nullptr, 0, kNoFlags},
      {"POST", "/auth/oidc/email-code", &oidc::email_code_submit, nullptr, kFormLimit, kNoFlags},
      {"POST", "/auth/oidc/email-code/verify", &oidc::email_code_verify, nullptr, kFormLimit, kNoFlags},
      // Sign in with an upstream provider (issue 51, docs/oidc.md "Sign in
      // with …"): the hosted page's button, and the provider's answer, which
      // waits on its token endpoint and JWKS (kOutbound).
      // Hosted registration (issue 51); the POST runs Argon2id (hashing pool).
      {"GET", "/auth/oidc/register", &oidc::register_form, nullptr, 0, kHashing},
      {"POST", "/auth/oidc/register", &oidc::register_submit, nullptr, kFormLimit, kHashing},
      {"POST", "/auth/oidc/upstream", &oidc::upstream_start, nullptr, kFormLimit, kNoFlags},
      {"GET", "/auth/upstream/?/start", &oidc::upstream_api_start, nullptr, 0, kNoFlags},
      {"POST", "/auth/upstream/exchange", &oidc::upstream_exchange, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/upstream/identities", &upstream::identities_list, nullptr, 0, kNoFlags},
      {"POST", "/auth/upstream/unlink", &upstream::identity_unlink, nullptr, kAuthBodyLimit, kJsonBody},
      {"POST", "/auth/upstream/link", &oidc::upstream_link_start, nullptr, kAuthBodyLimit, kJsonBody},
      {"GET", "/oidc/*/upstream/?/callback", &oidc::upstream_callback, nullptr, 0, kOutbound},
      {"POST", "/oidc/*/upstream/?/callback", &oidc::upstream_callback, nullptr, kFormLimit, kOutbound},
      {"POST", "/message/notification", nullptr, &messaging::notification, kMessageBodyLimit, kJsonBody | kOutbound},
      {"POST", "/message/sendPush", nullptr, &push::send_push, kMessageBodyLimit, kJsonBody | kOutbound},
      // One-click unsubscribe (RFC 8058): the token in the query names site
      // and address; the POST body ("List-Unsubscribe=One-Click", form
      // encoded) is read but not needed.
      {"GET", "/mail/unsubscribe", &messaging::unsubscribe_page, nullptr, 0, kNoFlags},
      {"POST", "/mail/unsubscribe", &messaging::unsubscribe, nullptr, 4096, kNoFlags},
  };
  // Then the site management API (manage_api/routes.cpp), in its own table.
  static const std::vector<Route> kRoutes = [] {
    std::vector<Route> all(std::begin(kApiRoutes), std::end(kApiRoutes));
    auto manage = manage_api::routes();
    all.insert(all.end(), manage.begin(), manage.end());
    return all;
  }();
  return kRoutes;
}

}  // namespace svc::app
