#include "oidc/pages.hpp"

#include "messaging/template.hpp"
#include "oidc/issuer.hpp"

namespace svc::oidc {

// Generated from web/account/oidc-*.html (CMakeLists.txt).
extern const std::string_view kPage_sign_in;
extern const std::string_view kPage_second_factor;
extern const std::string_view kPage_consent;
extern const std::string_view kPage_message;
extern const std::string_view kPage_logout;

namespace {

http::Response page(int status, std::string html) {
  http::Response r{status, std::move(html), {}};
  r.headers = page_headers();
  return r;
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
      // " hidden" is markup the page means, not text.
      if (it->first == "error_hidden") {
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
  return page(status, fill(kPage_sign_in, values));
}

http::Response second_factor_page(int status, const PageFields& fields, const std::string& mfa_token) {
  auto values = common(fields);
  values["mfa_token"] = mfa_token;
  return page(status, fill(kPage_second_factor, values));
}

http::Response consent_page(const PageFields& fields, const std::string& email, const std::string& scopes) {
  auto values = common(fields);
  values["email"] = email;
  values["scopes"] = scopes;
  return page(200, fill(kPage_consent, values));
}

http::Response logout_page(const std::string& site, const std::string& action, const std::string& csrf) {
  return page(200, fill(kPage_logout, {{"site", site}, {"action", action}, {"csrf", csrf}}));
}

http::Response message_page(int status, const std::string& title, const std::string& message) {
  return page(status, fill(kPage_message, {{"title", title}, {"message", message}}));
}

}  // namespace svc::oidc
