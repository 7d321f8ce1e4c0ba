#pragma once
// The provider's hosted pages (web/account/oidc-*.html, compiled in): the
// sign-in form, the second step, the consent question, the sign-out
// question and a plain message (an error that must not redirect, "signed
// out"). Every value is HTML-escaped; every page goes out with
// page_headers() (oidc/issuer.hpp): no framing, no script, not cached.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "http/response.hpp"

namespace svc::oidc {

// What the sign-in, second-step and consent pages show and carry.
struct PageFields {
  std::string lang = "en";
  std::string site;     // the site's name
  std::string client;   // the client's name
  std::string request;  // the authorization request's id
  std::string csrf;
  std::string error;  // "" = none shown
  // The sign-in page's passkey ceremony (WebAuthn options JSON and its
  // challenge_token); "" when the site has no passkeys.
  std::string passkey_options;
  std::string passkey_challenge;
  // Whether the sign-in page offers a code by e-mail (the site sends mail).
  bool email_code = false;
  // The sign-in page's "Sign in with …" forms (upstream/handlers.hpp
  // provider_buttons: markup, its values escaped); "" = none.
  std::string providers_markup;
  // Whether the sign-in page links to the registration page (sign-up open).
  bool signup = false;
};

http::Response sign_in_page(int status, const PageFields& fields, const std::string& login_hint);
http::Response second_factor_page(int status, const PageFields& fields, const std::string& mfa_token);
http::Response consent_page(const PageFields& fields, const std::string& email, const std::string& scopes);
http::Response logout_page(const std::string& site, const std::string& action, const std::string& csrf);
// The end-session page: signed out of `site`, each of `frame_urls` (the
// clients' front-channel logout URIs with iss and sid) in a hidden iframe,
// whose origins alone the page's policy lets it frame; its script then goes
// on to `next` (the post_logout_redirect_uri; "" = stay).
http::Response signed_out_page(const std::string& site, const std::string& next,
                               const std::vector<std::string>& frame_urls,
                               const std::vector<std::string>& frame_origins);
// The forgotten-password form (its e-mail field filled with `email`) and
// the answer to it, the same whether or not an account uses the address.
http::Response forgot_page(int status, const PageFields& fields, const std::string& email);
http::Response forgot_sent_page(const PageFields& fields);
// Sign-in with a code by e-mail: the form asking for the address (filled
// with `email`), and the form for the code mailed to `email`, the same
// whether or not an account uses the address.
http::Response email_code_page(int status, const PageFields& fields, const std::string& email);
http::Response email_code_sent_page(int status, const PageFields& fields, const std::string& email);
// The hosted registration form (issue 51), its fields filled again after a refusal.
http::Response register_page(int status, const PageFields& fields, const std::string& email,
                             const std::string& first_name, const std::string& last_name);
http::Response message_page(int status, const std::string& title, const std::string& message);
// The outcome of linking an upstream account from the account centre, with
// a link back to it (`back`: /account/?site=N).
http::Response linked_page(int status, const std::string& title, const std::string& message, const std::string& back);

// `tmpl` with every {{name}} replaced by the HTML-escaped values[name]
// ("" for a name without a value).
std::string fill(std::string_view tmpl, const std::map<std::string, std::string>& values);

}  // namespace svc::oidc
