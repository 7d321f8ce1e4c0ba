#include "auth/handlers.hpp"
#include "auth/mfa_bearer.hpp"
#include "auth/totp_factor.hpp"
#include "config/config.hpp"
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

}  // namespace

http::Response mfa_totp_setup(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  if (ctx.config.keys.mfa_key.empty()) throw http::ApiError::failed(503, "Two-factor authentication is not configured");
  auto setup = set_up_totp(ctx, me.table, me.user, issuer_name(ctx, me.app_id));
  if (!setup) throw http::ApiError::failed(409, "Two-factor authentication is already enabled");
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("secret", setup->secret).kv("otpauth_url", setup->otpauth_url).close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
