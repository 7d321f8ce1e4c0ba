#include "oidc/issuer.hpp"

#include "config/config.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/cookies.hpp"
#include "http/site_cache.hpp"

namespace svc::oidc {

std::string issuer_of(const config::Config& config, long long site_id) {
  return config.tokens.oidc_base() + "/oidc/" + std::to_string(site_id);
}

std::optional<db::Site> active_site(core::Context& ctx, long long site_id) {
  auto site = http::find_site(ctx, site_id);
  if (!site || !site->active) return std::nullopt;
  return site;
}

db::Site path_site(const http::Request& request, core::Context& ctx) {
  constexpr std::string_view kPrefix = "/oidc/";
  std::string_view rest = std::string_view(request.path).substr(kPrefix.size());
  const auto id = core::parse_id(rest.substr(0, rest.find('/')));
  auto site = id ? active_site(ctx, *id) : std::nullopt;
  if (!site) throw http::ApiError::failed(404, "Not found");
  return *site;
}

bool secure_cookies(const core::Context& ctx) { return ctx.config.tokens.oidc_base().rfind("http://", 0) != 0; }

std::string sso_cookie_name(const db::Site& site) {
  return site.user_pool == db::kDefaultPool ? "svc_sso_" + std::to_string(site.id)
                                            : "svc_sso_pool_" + std::to_string(site.user_pool);
}

std::string cookie_name(const core::Context& ctx, std::string_view name) {
  return (secure_cookies(ctx) ? "__Host-" : "") + std::string(name);
}

std::string set_cookie(const core::Context& ctx, std::string_view name, std::string_view value, long long max_age) {
  return http::set_cookie(cookie_name(ctx, name), value, max_age, secure_cookies(ctx));
}

std::string request_cookie(const core::Context& ctx, const http::Request& request, std::string_view cookie) {
  return http::request_cookie(request, cookie_name(ctx, cookie));
}

std::string hash_hex(std::string_view secret) { return crypto::hex_encode(crypto::sha256(secret)); }

std::string random_token() { return crypto::base64url_encode(crypto::random_bytes(32)); }

std::vector<std::pair<std::string, std::string>> page_headers(bool script,
                                                              const std::vector<std::string>& frame_origins) {
  // No form-action: after a sign-in the form's reply redirects the browser
  // to the client's redirect URI, which form-action would block.
  std::string policy = "default-src 'none'; style-src 'self'; img-src 'self'; ";
  if (script) policy += "script-src 'self'; connect-src 'self'; ";
  if (!frame_origins.empty()) {
    policy += "frame-src";
    for (const std::string& origin : frame_origins) policy += " " + origin;
    policy += "; ";
  }
  policy += "base-uri 'none'; frame-ancestors 'none'";
  return {
      {"Content-Type", "text/html; charset=utf-8"}, {"Content-Security-Policy", policy}, {"X-Frame-Options", "DENY"},
      {"X-Content-Type-Options", "nosniff"},        {"Referrer-Policy", "no-referrer"},
  };
}

}  // namespace svc::oidc
