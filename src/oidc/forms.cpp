#include "oidc/forms.hpp"

#include "core/clock.hpp"
#include "oidc/flow.hpp"
#include "oidc/issuer.hpp"
#include "upstream/linking.hpp"

namespace svc::oidc {

std::optional<Live> live_request(const http::Request& http, const Params& p, const std::string& csrf,
                                 core::Context& ctx) {
  if (!p.repeated.empty() || !p.malformed.empty()) return std::nullopt;
  auto request = form_request(http, p.value("request"), csrf, ctx);
  if (!request) return std::nullopt;
  auto site = active_site(ctx, request->site_id);
  auto client = db::OAuthRepo(ctx.db).find_client(request->client_id);
  if (!site || !client) return std::nullopt;
  return Live{*request, *site, *client};
}

std::optional<Live> page_request(const http::Request& http, std::string& csrf, core::Context& ctx) {
  const Params p = parse_params(http.query);
  csrf = csrf_token(request_cookie(ctx, http, kBrowserCookie), p.value("request"));
  return live_request(http, p, csrf, ctx);
}

PageFields fields_of(const Live& live, const std::string& csrf, std::string error) {
  PageFields f;
  f.site = live.site.name;
  f.client = live.client.name;
  f.request = live.request.id;
  f.csrf = csrf;
  f.error = std::move(error);
  return f;
}

http::Response expired_page() {
  return message_page(400, "This sign-in has expired",
                      "Go back to the application you came from and start signing in again.");
}

http::Response signed_in(Live& live, const std::string& sid, const http::Request& http, core::Context& ctx) {
  auto sso = sso_of(ctx, sid);
  if (!sso) return expired_page();
  // An upstream identity waiting for this sign-in (upstream/flow.cpp).
  upstream::finish_pending_link(ctx, http, live.request.id, sso->session.table, sso->user.id);
  const std::string cookie = random_token();
  db::OAuthRepo(ctx.db).insert_sso(hash_hex(cookie), live.site.id, sid, ctx.clock.now());
  Step step{live.site, live.client, live.request,
            false,     303,         {set_cookie(ctx, sso_cookie_name(live.site), cookie, -1)}};
  return proceed(step, sso, http, ctx);
}

}  // namespace svc::oidc
