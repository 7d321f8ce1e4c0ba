// The hosted pages' forms (application/x-www-form-urlencoded, no script):
// GET /auth/oidc/sign-in shows the sign-in form of a stored authorization
// request; POST /auth/oidc/sign-in checks the password (the login service of
// /auth/login: throttle, audit, second factor), /auth/oidc/second-factor the
// TOTP or recovery code (that of /auth/mfa/verify), /auth/oidc/passkey a
// passkey's answer to the ceremony the sign-in page carried (that of
// /auth/passkey/login), /auth/oidc/consent the
// user's answer; GET/POST /auth/oidc/forgot the forgotten-password form,
// which asks for a reset mail as /auth/request-pass does (the code by
// e-mail: oidc/email_code.cpp). Each form carries the request id and its
// CSRF token (oidc/flow.hpp csrf_token), checked before anything else.

#include "auth/mfa/login.hpp"
#include "auth/mfa/totp_factor.hpp"
#include "auth/passkey/json.hpp"
#include "auth/passkey/service.hpp"
#include "auth/password/login_service.hpp"
#include "auth/password/policy.hpp"
#include "auth/password/reset_service.hpp"
#include "auth/session/sessions.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "db/passkey_repo.hpp"
#include "db/table_name.hpp"
#include "db/upstream_repo.hpp"
#include "http/validate.hpp"
#include "oidc/flow.hpp"
#include "oidc/forms.hpp"
#include "oidc/handlers.hpp"
#include "oidc/issuer.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {
namespace {

// The sign-in page again, with a fresh passkey ceremony when the site has
// passkeys (a discoverable credential: no e-mail asked first), and the link
// to a code by e-mail when the site sends mail.
http::Response sign_in_again(int status, const Live& live, const std::string& csrf, std::string error,
                             const std::string& email, core::Context& ctx) {
  PageFields f = fields_of(live, csrf, std::move(error));
  f.email_code = !live.site.disable_email;
  f.providers_markup = provider_buttons(ctx, live.site.id, live.request.id, csrf);
  f.signup = db::UpstreamRepo(ctx.db).signup_open(live.site.id);
  if (db::PasskeyRepo(ctx.db).find_rp(live.site.id)) {
    const db::TableName table = sign_in_table(ctx);
    const auth::passkey::Ceremony ceremony = auth::passkey::open_login(ctx, live.site.id, std::nullopt, table);
    f.passkey_options = ceremony.options_json;
    f.passkey_challenge = ceremony.challenge_token;
  }
  return sign_in_page(status, f, email);
}

// The passkey's answer as the API reads it: {"credential": <the form's JSON>}.
std::optional<auth::passkey::AuthenticationResponse> read_credential(const std::string& text) {
  rapidjson::Document body;
  body.SetObject();
  rapidjson::Document credential(&body.GetAllocator());
  credential.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (credential.HasParseError() || !credential.IsObject()) return std::nullopt;
  body.AddMember("credential", credential, body.GetAllocator());
  http::Fields fields(body);
  auto response = auth::passkey::read_authentication(fields);
  if (!fields.ok()) return std::nullopt;
  return response;
}

}  // namespace

http::Response sign_in_form(const http::Request& http, core::Context& ctx) {
  std::string csrf;
  auto live = page_request(http, csrf, ctx);
  if (!live) return expired_page();
  return sign_in_again(200, *live, csrf, "", live->request.login_hint, ctx);
}

http::Response sign_in_submit(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  auto live = live_request(http, p, p.value("csrf"), ctx);
  if (!live) return expired_page();
  const std::string csrf = p.value("csrf");
  const std::string email = p.value("email");
  const std::string password = p.value("password");
  if (email.empty() || email.size() > 254 || password.empty() || password.size() > auth::kMaxPasswordBytes) {
    return sign_in_again(400, *live, csrf, "Enter your e-mail address and password.", email, ctx);
  }
  const db::TableName table = sign_in_table(ctx);
  auth::LoginResult result = auth::log_in({email, password, table, live->site.id}, http, ctx);
  switch (result.outcome) {
    case auth::LoginOutcome::kOk:
      return signed_in(*live, result.session.tokens.sid, http, ctx);
    case auth::LoginOutcome::kSecondFactor:
      return second_factor_page(200, fields_of(*live, csrf, ""), result.mfa_token);
    case auth::LoginOutcome::kThrottled:
      return sign_in_again(429, *live, csrf, "Too many attempts. Try again later.", email, ctx);
    case auth::LoginOutcome::kEmailNotVerified:
      return sign_in_again(403, *live, csrf, "Verify your e-mail address first.", email, ctx);
    case auth::LoginOutcome::kInvalidCredentials:
      break;
  }
  return sign_in_again(401, *live, csrf, "Invalid credentials", email, ctx);
}

http::Response passkey_submit(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  auto live = live_request(http, p, p.value("csrf"), ctx);
  if (!live) return expired_page();
  const std::string csrf = p.value("csrf");
  const std::string token = p.value("challenge_token");
  auto response = token.empty() || token.size() > 128 ? std::nullopt : read_credential(p.value("credential"));
  if (!response) return sign_in_again(400, *live, csrf, "Passkey not accepted", "", ctx);
  auth::passkey::LoginResult result = auth::passkey::finish_login(token, *response, http, ctx);
  switch (result.outcome) {
    case auth::passkey::LoginOutcome::kOk: {
      // The challenge was this page's, so of this site; a passkey of
      // another site's ceremony opens nothing here.
      auto session = db::SessionRepo(ctx.db).find(result.session.tokens.sid);
      if (session && session->site_id == live->site.id) return signed_in(*live, session->id, http, ctx);
      if (session) auth::end_session(ctx, session->table, session->user_id, session->id, "oidc_wrong_site");
      break;
    }
    case auth::passkey::LoginOutcome::kThrottled:
      return sign_in_again(429, *live, csrf, "Too many attempts. Try again later.", "", ctx);
    case auth::passkey::LoginOutcome::kExpired:
      return sign_in_again(401, *live, csrf, "The passkey request expired, try again.", "", ctx);
    case auth::passkey::LoginOutcome::kRefused:
      break;
  }
  return sign_in_again(401, *live, csrf, "Passkey not accepted", "", ctx);
}

http::Response second_factor_submit(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  auto live = live_request(http, p, p.value("csrf"), ctx);
  if (!live) return expired_page();
  const std::string csrf = p.value("csrf");
  const std::string token = p.value("mfa_token");
  const std::string code = p.value("code");
  const std::string recovery = p.value("recovery_code");
  if (token.empty() || token.size() > 128 || code.empty() == recovery.empty() || recovery.size() > 64 ||
      (!code.empty() && !auth::is_totp_code(code))) {
    return second_factor_page(400, fields_of(*live, csrf, "Enter the 6-digit code or a recovery code."), token);
  }
  auth::MfaResult result = auth::verify_second_factor({token, code.empty() ? recovery : code, code.empty()}, http, ctx);
  switch (result.outcome) {
    case auth::MfaOutcome::kOk:
      return signed_in(*live, result.session.tokens.sid, http, ctx);
    case auth::MfaOutcome::kWrong:
      return second_factor_page(401, fields_of(*live, csrf, "Invalid code"), token);
    case auth::MfaOutcome::kThrottled:
      return second_factor_page(429, fields_of(*live, csrf, "Too many attempts. Try again later."), token);
    case auth::MfaOutcome::kExpired:
      break;
  }
  return sign_in_again(401, *live, csrf, "Second factor expired, sign in again.", live->request.login_hint, ctx);
}

http::Response consent_submit(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  auto live = live_request(http, p, p.value("csrf"), ctx);
  if (!live) return expired_page();
  Step step{live->site, live->client, live->request, false, 303, {}};
  const std::string decision = p.value("decision");
  if (decision == "deny") return error_redirect(step, "access_denied", "the user denied the request", ctx);
  auto sso = current_sso(http, ctx, live->site);
  if (decision == "allow" && sso) {
    db::OAuthRepo(ctx.db).save_consent(sso->session.table, sso->user.id, live->client.client_id, live->request.scope,
                                       ctx.clock.now());
    step.consented_now = true;
  }
  return proceed(step, sso, http, ctx);
}

http::Response forgot_form(const http::Request& http, core::Context& ctx) {
  std::string csrf;
  auto live = page_request(http, csrf, ctx);
  if (!live) return expired_page();
  return forgot_page(200, fields_of(*live, csrf, ""), live->request.login_hint);
}

// The answer does not say whether an account uses the address, and the
// reset request does the same work either way (docs/decisions.md "Equal
// work for request-pass").
http::Response forgot_submit(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  auto live = live_request(http, p, p.value("csrf"), ctx);
  if (!live) return expired_page();
  const PageFields fields = fields_of(*live, p.value("csrf"), "");
  const std::string email = p.value("email");
  if (email.empty() || email.size() > 254) {
    return forgot_page(400, fields_of(*live, fields.csrf, "Enter your e-mail address."), email);
  }
  // A site with no reset page has no link to send (request-pass: 400 on url).
  if (live->site.reset_urls.empty() && ctx.config.auth.reset_page.empty()) {
    return message_page(400, "Password reset is not available",
                        "This site has no page to set a new password. Ask its administrator.");
  }
  const db::TableName table = sign_in_table(ctx);
  auth::request_password_reset(ctx, http, email, live->site.id, table, std::nullopt);
  return forgot_sent_page(fields);
}

}  // namespace svc::oidc
