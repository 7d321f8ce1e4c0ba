// The hosted sign-in page's code by e-mail: GET /auth/oidc/email-code asks
// for the address, POST /auth/oidc/email-code mails a code through the
// service of POST /auth/email-code (its resend rule and daily cap, the
// same answer and the same work whether or not an account uses the
// address), POST /auth/oidc/email-code/verify tries the typed code through
// that of POST /auth/email-code/verify (the same tries and caps) and, on the
// right one, goes on as the password form does: the second factor when the
// user has one, else the single sign-on session and the flow. Each form
// carries the request id and its CSRF token, checked before anything else.

#include <algorithm>

#include "auth/email/code.hpp"
#include "auth/mfa/totp_factor.hpp"
#include "config/config.hpp"
#include "db/table_name.hpp"
#include "http/validate.hpp"
#include "oidc/flow.hpp"
#include "oidc/forms.hpp"
#include "oidc/handlers.hpp"
#include "oidc/issuer.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {
namespace {

// A site that sends no mail mails no code (its sign-in page has no link to
// this form); the check is per site, so it tells nothing about an address.
http::Response unavailable() {
  return message_page(400, "Sign-in with a code is not available",
                      "This site sends no e-mail. Go back and sign in with your password.");
}

bool is_address(const std::string& email) { return email.size() <= 254 && http::is_valid_email(email); }

// What the service asks for, on the first [auth] tables table (as the
// password form).
auth::EmailCodeRequest ask_of(const Live& live, const std::string& email, core::Context& ctx) {
  const db::TableName table = sign_in_table(ctx);
  return {email, live.site.id, table};
}

// The typed code without the spaces a reader may type between the digits.
std::string typed_code(const Params& p) {
  std::string code = p.value("code");
  if (code.size() > 16) return "";
  std::erase(code, ' ');
  return code;
}

}  // namespace

http::Response email_code_form(const http::Request& http, core::Context& ctx) {
  std::string csrf;
  auto live = page_request(http, csrf, ctx);
  if (!live) return expired_page();
  if (live->site.disable_email) return unavailable();
  return email_code_page(200, fields_of(*live, csrf, ""), live->request.login_hint);
}

http::Response email_code_submit(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  const std::string csrf = p.value("csrf");
  auto live = live_request(http, p, csrf, ctx);
  if (!live) return expired_page();
  if (live->site.disable_email) return unavailable();
  const std::string email = p.value("email");
  if (!is_address(email)) return email_code_page(400, fields_of(*live, csrf, "Enter your e-mail address."), email);
  auth::send_email_code(ask_of(*live, email, ctx), http, ctx);
  return email_code_sent_page(200, fields_of(*live, csrf, ""), email);
}

// One message for every refusal, as the API's one reply: telling a spent
// or capped code from a wrong one would tell a known address from an
// unknown one (docs/decisions.md "Issue 39: sign-in with a code by e-mail").
http::Response email_code_verify(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  const std::string csrf = p.value("csrf");
  auto live = live_request(http, p, csrf, ctx);
  if (!live) return expired_page();
  const std::string email = p.value("email");
  if (!is_address(email)) return email_code_page(400, fields_of(*live, csrf, "Enter your e-mail address."), email);
  // A malformed code costs no try (as the API's validation error).
  const std::string code = typed_code(p);
  if (!auth::is_totp_code(code)) {
    return email_code_sent_page(400, fields_of(*live, csrf, "Enter the 6 digits of the code in the e-mail."), email);
  }
  auth::EmailCodeResult result = auth::sign_in_with_email_code(ask_of(*live, email, ctx), code, http, ctx);
  switch (result.outcome) {
    case auth::EmailCodeOutcome::kOk:
      return signed_in(*live, result.session.tokens.sid, http, ctx);
    case auth::EmailCodeOutcome::kSecondFactor:
      return second_factor_page(200, fields_of(*live, csrf, ""), result.mfa_token);
    case auth::EmailCodeOutcome::kRefused:
      break;
  }
  const std::string minutes = std::to_string(std::max(1, ctx.config.auth.email_code.ttl / 60));
  return email_code_sent_page(401,
                              fields_of(*live, csrf,
                                        "Invalid or expired code. A code works for " + minutes +
                                            " minutes and a few tries only: after too many wrong tries, "
                                            "or if the e-mail is older, send a new code."),
                              email);
}

}  // namespace svc::oidc
