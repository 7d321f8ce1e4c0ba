#include "oidc/pages.hpp"

#include "core/text.hpp"
#include "messaging/template.hpp"
#include "oidc/id_token.hpp"
#include "oidc/issuer.hpp"

namespace svc::oidc {

// Generated from web/account/oidc-*.html (CMakeLists.txt).
extern const std::string_view kPage_sign_in;
extern const std::string_view kPage_second_factor;
extern const std::string_view kPage_consent;
extern const std::string_view kPage_message;
extern const std::string_view kPage_logout;
extern const std::string_view kPage_signed_out;
extern const std::string_view kPage_forgot;
extern const std::string_view kPage_forgot_sent;
extern const std::string_view kPage_email_code;
extern const std::string_view kPage_email_code_sent;
extern const std::string_view kPage_register;

namespace {

http::Response page(int status, std::string html, bool script = false,
                    const std::vector<std::string>& frame_origins = {}) {
  http::Response r{status, std::move(html), {}};
  r.headers = page_headers(script, frame_origins);
  return r;
}

// Names whose values are markup the page means, not text: an attribute
// without a value (" hidden") or elements made here from escaped values.
bool is_markup(const std::string& name) {
  auto ends_with = [&](std::string_view tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with("_hidden") || ends_with("_markup");
}

std::map<std::string, std::string> common(const PageFields& f) {
  return {{"lang", f.lang},
          {"site", f.site},
          {"client", f.client},
          {"request", f.request},
          {"csrf", f.csrf},
          {"error", f.error},
          // An attribute without a value: the alert box stays hidden.
          {"error_hidden", f.error.empty() ? " hidden" : ""}};
}

// A page whose form carries an e-mail address.
http::Response with_email(std::string_view tmpl, int status, const PageFields& fields, const std::string& email) {
  auto values = common(fields);
  values["email"] = email;
  return page(status, fill(tmpl, values));
}

}  // namespace

std::string fill(std::string_view tmpl, const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(tmpl.size() + 256);
  size_t pos = 0;
  while (true) {
    const size_t open = tmpl.find("{{", pos);
    const size_t close = open == std::string_view::npos ? open : tmpl.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out.append(tmpl.substr(pos, open - pos));
    auto it = values.find(std::string(tmpl.substr(open + 2, close - open - 2)));
    if (it != values.end()) {
      if (is_markup(it->first)) {
        out += it->second;
      } else {
        messaging::append_html_escaped(out, it->second);
      }
    }
    pos = close + 2;
  }
  out.append(tmpl.substr(pos));
  return out;
}

http::Response sign_in_page(int status, const PageFields& fields, const std::string& login_hint) {
  auto values = common(fields);
  values["login_hint"] = login_hint;
  values["passkey_options"] = fields.passkey_options;
  values["passkey_challenge"] = fields.passkey_challenge;
  values["email_code_hidden"] = fields.email_code ? "" : " hidden";
  values["providers_markup"] = fields.providers_markup;
  values["register_hidden"] = fields.signup ? "" : " hidden";
  // The passkey button's script (web/account/oidc-sign-in.js).
  return page(status, fill(kPage_sign_in, values), true);
}

http::Response second_factor_page(int status, const PageFields& fields, const std::string& mfa_token) {
  auto values = common(fields);
  values["mfa_token"] = mfa_token;
  return page(status, fill(kPage_second_factor, values));
}

http::Response consent_page(const PageFields& fields, const std::string& email, const std::string& scopes) {
  auto values = common(fields);
  values["email"] = email;
  // offline_access is no knowledge but lasting access: said on its own line.
  std::vector<std::string> known;
  for (std::string_view s : core::split_words(scopes)) {
    if (s != "offline_access") known.emplace_back(s);
  }
  values["scopes"] = core::join(known, " ");
  values["offline_hidden"] = has_scope(scopes, "offline_access") ? "" : " hidden";
  return page(200, fill(kPage_consent, values));
}

http::Response logout_page(const std::string& site, const std::string& action, const std::string& csrf) {
  return page(200, fill(kPage_logout, {{"site", site}, {"action", action}, {"csrf", csrf}}));
}

http::Response signed_out_page(const std::string& site, const std::string& next,
                               const std::vector<std::string>& frame_urls,
                               const std::vector<std::string>& frame_origins) {
  std::string frames;
  for (const std::string& url : frame_urls) {
    frames += fill(R"(<iframe src="{{src}}" title="sign-out" hidden></iframe>)", {{"src", url}});
  }
  return page(
      200,
      fill(kPage_signed_out,
           {{"site", site}, {"next", next}, {"next_hidden", next.empty() ? " hidden" : ""}, {"frames_markup", frames}}),
      true, frame_origins);
}

http::Response forgot_page(int status, const PageFields& fields, const std::string& email) {
  return with_email(kPage_forgot, status, fields, email);
}

http::Response forgot_sent_page(const PageFields& fields) { return page(200, fill(kPage_forgot_sent, common(fields))); }

http::Response email_code_page(int status, const PageFields& fields, const std::string& email) {
  return with_email(kPage_email_code, status, fields, email);
}

http::Response email_code_sent_page(int status, const PageFields& fields, const std::string& email) {
  return with_email(kPage_email_code_sent, status, fields, email);
}

http::Response register_page(int status, const PageFields& fields, const std::string& email,
                             const std::string& first_name, const std::string& last_name) {
  auto values = common(fields);
  values["email"] = email;
  values["firstname"] = first_name;
  values["lastname"] = last_name;
  return page(status, fill(kPage_register, values));
}

http::Response message_page(int status, const std::string& title, const std::string& message) {
  return page(status, fill(kPage_message, {{"title", title}, {"message", message}, {"back_hidden", " hidden"}}));
}

http::Response linked_page(int status, const std::string& title, const std::string& message, const std::string& back) {
  return page(status, fill(kPage_message, {{"title", title}, {"message", message}, {"back", back}}));
}

}  // namespace svc::oidc
