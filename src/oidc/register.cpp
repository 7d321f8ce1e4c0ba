// Hosted registration (issue 51, design "Upstream sign-in … and hosted
// registration"): GET /auth/oidc/register shows the form of a waiting
// authorization request when the site's sign-up is open; POST checks the
// address, the site's password rules (those of /auth/sign-up) and makes the
// account with the sign-up service (its verify-email rule included). A site
// that asks for verified addresses gets a "verify, then sign in" page;
// any other goes on signed in, back to the relying party.

#include <rapidjson/document.h>

#include "auth/password/policy.hpp"
#include "auth/password/sign_up_service.hpp"
#include "core/text.hpp"
#include "db/upstream_repo.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "oidc/flow.hpp"
#include "oidc/forms.hpp"
#include "oidc/handlers.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {
namespace {

constexpr size_t kMaxNameBytes = 200;

http::Response closed_page() {
  return message_page(403, "Sign-up is closed", "This site does not let new users sign up. Ask its administrator.");
}

// The message of an ApiError's JSON body ("" when it has none).
std::string message_of(const http::ApiError& e) {
  rapidjson::Document body;
  body.Parse(e.body().c_str());
  if (body.HasParseError() || !body.IsObject() || !body.HasMember("message") || !body["message"].IsString()) return "";
  return body["message"].GetString();
}

}  // namespace

http::Response register_form(const http::Request& http, core::Context& ctx) {
  std::string csrf;
  auto live = page_request(http, csrf, ctx);
  if (!live) return expired_page();
  if (!db::UpstreamRepo(ctx.db).signup_open(live->site.id)) return closed_page();
  return register_page(200, fields_of(*live, csrf, ""), live->request.login_hint, "", "");
}

http::Response register_submit(const http::Request& http, core::Context& ctx) {
  const Params p = parse_params(http.body);
  auto live = live_request(http, p, p.value("csrf"), ctx);
  if (!live) return expired_page();
  if (!db::UpstreamRepo(ctx.db).signup_open(live->site.id)) return closed_page();
  const std::string csrf = p.value("csrf");
  const std::string email = p.value("email");
  const std::string password = p.value("password");
  const std::string first = p.value("firstname");
  const std::string last = p.value("lastname");
  auto again = [&](int status, const std::string& error) {
    return register_page(status, fields_of(*live, csrf, error), email, first, last);
  };
  if (email.size() > 254 || !http::is_valid_email(email)) return again(400, "Enter a valid e-mail address.");
  if (password.empty() || password.size() > auth::kMaxPasswordBytes) return again(400, "Choose a password.");
  if (first.size() > kMaxNameBytes || last.size() > kMaxNameBytes || core::has_name_controls(first) ||
      core::has_name_controls(last)) {
    return again(400, "Names may hold at most 50 characters and no control characters.");
  }
  try {
    auth::require_strong_password(password, ctx, live->site.id, {email, first, last});
  } catch (const http::ApiError& e) {
    if (e.status() == 429) return again(429, "Too many attempts. Try again later.");
    return again(400, message_of(e) +
                          ": at least 8 characters with an upper-case and a lower-case letter, a digit and one of "
                          "@$!%*?&, not a known breached password.");
  }
  auto session = auth::register_user({email, password, first, last, sign_in_table(ctx), live->site.id, ""}, http, ctx);
  if (!session) return again(409, "An account uses this address already. Sign in instead.");
  if (live->site.verify_email) {
    return message_page(200, "Verify your e-mail address",
                        "We sent a link to " + email +
                            ". Open it, then go back to the application and sign in with your new password.");
  }
  return signed_in(*live, session->tokens.sid, http, ctx);
}

}  // namespace svc::oidc
