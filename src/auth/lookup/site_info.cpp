// GET /auth/site?site=N (issue 36, item 15): the name of an active site, for
// the ready pages (/account/reset, /account/verify, the account centre /account/), which
// show it instead of asking the user for a site number. Public and read-only:
// a site's name is what its mail already shows its users. Issue 48 adds what
// every access token of the site already carries or what any sign-in page
// reveals: whether it offers passkeys (the account centre hides them when
// not), and the `iss` and `aud` its backend checks (docs/api.md "Verifying
// access tokens"), so a site developer needs no operator for them. Nothing
// else of the row (sender, keys, settings) is answered. An unknown and an
// inactive site get the same 404.
#include "auth/handlers.hpp"
#include "auth/passkey/service.hpp"
#include "auth/tokens/access_tokens.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/query.hpp"
#include "http/site_cache.hpp"

namespace svc::auth {

http::Response site_info(const http::Request& request, core::Context& ctx) {
  const auto values = http::query_values(request.query, "site");
  if (values.size() > 1) throw http::ApiError::validation("site", "site must be given once");
  if (values.empty() || values.front().empty()) throw http::ApiError::validation("site", "site is required");
  const auto id = core::parse_id(values.front());
  if (!id || *id <= 0) throw http::ApiError::validation("site", "site must be a positive integer");
  const auto site = http::find_site(ctx, *id);
  if (!site || !site->active) throw http::ApiError::failed(404, "Site not found");
  http::JsonWriter w;
  w.open().kv("status", "Success").open("site").kv("id", site->id).kv("name", site->name);
  w.kv("passkeys", passkey::offered(ctx, site->id));
  // The legacy HS256 access token has no iss and no site audience to check.
  if (!ctx.config.tokens.legacy_hs256()) {
    const std::string& issuer = ctx.config.tokens.issuer;
    w.open("access_tokens").kv("issuer", issuer).kv("audience", site_audience(*site, issuer)).close();
  }
  w.close().close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
