#include <optional>
#include <stdexcept>
#include <string>

#include "auth/handlers.hpp"
#include "auth/mfa/bearer.hpp"
#include "auth/mfa/totp_factor.hpp"
#include "config/config.hpp"
#include "core/qr_svg.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/site_cache.hpp"

namespace svc::auth {
namespace {

// The name an authenticator app shows beside the code: the site's name for a
// token issued to a site, else the host of [tokens] issuer.
std::string issuer_name(core::Context& ctx, long long app_id) {
  if (app_id != 0) {
    auto site = http::find_site(ctx, app_id);
    if (site && !site->name.empty()) return site->name;
  }
  return core::url_host(ctx.config.tokens.issuer);
}

std::optional<std::string> qr_svg_of(const std::string& url) {
  try {
    return core::qr_svg(url);
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

}  // namespace

http::Response mfa_totp_setup(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  require_enrolment_allowed(me, ctx);
  if (ctx.config.keys.mfa_key.empty()) throw http::ApiError::failed(503, "Two-factor authentication is not configured");
  auto setup = set_up_totp(ctx, me.table, me.user, issuer_name(ctx, me.app_id));
  if (!setup) throw http::ApiError::failed(409, "Two-factor authentication is already enabled");
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("secret", setup->secret).kv("otpauth_url", setup->otpauth_url);
  // The QR code is drawn here (core/qr_svg.hpp) so that the enrolment page
  // needs no QR library: it shows the SVG as an image. A URL no symbol holds
  // (only a site name of hundreds of non-ASCII characters gets there) leaves
  // it out; the secret can still be typed into the app.
  if (auto svg = qr_svg_of(setup->otpauth_url)) w.kv("qr_svg", *svg);
  w.close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
