#pragma once
// Who the OpenID Connect provider is for a request (issue 39): each site is
// an issuer, <[tokens] oidc_issuer or issuer>/oidc/<site id>, and its
// endpoints live under that path. The cookies the provider sets, and the
// policy headers of the pages it renders.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "http/request.hpp"

namespace svc::oidc {

// The issuer of site `site_id`.
std::string issuer_of(const config::Config& config, long long site_id);

// The site of a /oidc/<id>/... path, active; ApiError 404 Not found when the
// path names none (an unknown issuer is no issuer).
db::Site path_site(const http::Request& request, core::Context& ctx);
// An active site by id; nullopt when there is none.
std::optional<db::Site> active_site(core::Context& ctx, long long site_id);

// Cookies are Secure unless the issuer is a loopback http:// URL (a
// development stack's browsers would drop a Secure cookie sent over http).
bool secure_cookies(const core::Context& ctx);

// The single sign-on cookie of a site and the browser cookie that binds an
// authorization request to the browser that made it. Sites that share a
// user pool share single sign-on ("svc_sso_pool_<pool>"); a site of the
// default pool keeps one of its own ("svc_sso_<id>"), as before pools: the
// sites there share users by inheritance, not by choice (docs/decisions.md
// "User pools").
std::string sso_cookie_name(const db::Site& site);
inline constexpr std::string_view kBrowserCookie = "svc_oidc_browser";

// The name a cookie goes by: `name` with the "__Host-" prefix when cookies
// are Secure (RFC 6265bis 4.1.3.2: the browser then takes it only from this
// host, Secure, Path=/, so no sibling domain or plain-http page can set or
// shadow it); `name` itself on a loopback development stack.
std::string cookie_name(const core::Context& ctx, std::string_view name);

// A Set-Cookie value of cookie_name(name): host-only (no Domain), Path=/,
// HttpOnly, SameSite=Lax, Secure per secure_cookies; max_age < 0 = a
// session cookie, 0 = delete it.
std::string set_cookie(const core::Context& ctx, std::string_view name, std::string_view value, long long max_age);

// The value of cookie cookie_name(name) the request carries; "" when
// absent. The unprefixed name is not read (docs/decisions.md "Issue 48:
// introspection, the SSRF deny list, `__Host-` cookies").
std::string request_cookie(const core::Context& ctx, const http::Request& request, std::string_view name);

// SHA-256 hex: how codes, secrets and cookies are stored.
std::string hash_hex(std::string_view secret);
// 32 random bytes, base64url (43 characters).
std::string random_token();

// The headers of every page the provider renders: HTML, not cached, no
// framing (clickjacking), styles only from this origin, no referrer; no
// script unless `script` (then scripts and fetches of this origin only),
// frames only of `frame_origins` (the end-session page's front-channel
// logout frames).
std::vector<std::pair<std::string, std::string>> page_headers(bool script = false,
                                                              const std::vector<std::string>& frame_origins = {});

}  // namespace svc::oidc
