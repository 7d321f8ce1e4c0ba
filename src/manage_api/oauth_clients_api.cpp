// /admin/sites/{site}/oauth-clients: the OAuth clients capability
// (manage/oauth_clients.hpp).
#include "manage/oauth_clients.hpp"
#include "manage_api/body.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"
#include "oidc/issuer.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

// /admin/sites/{site}/oauth-clients/{client_id}...: the client id is segment 4.
constexpr size_t kClientSegment = 4;

void write_client(http::JsonWriter& w, const db::OAuthClient& c) {
  w.open()
      .kv("client_id", c.client_id)
      .kv("name", c.name)
      .kv("type", c.is_public ? "public" : "confidential")
      .kv("first_party", c.first_party)
      .kv("id_token_alg", c.id_token_alg);
  write_strings(w, "redirect_uris", c.redirect_uris);
  write_strings(w, "post_logout_redirect_uris", c.post_logout_uris);
  write_nullable(w, "frontchannel_logout_uri", c.frontchannel_logout_uri);
  write_time(w, "created_at", c.created_at);
  w.close();
}

// {"client":{...},"client_secret":S (not for a public client),"issuer":URL}
http::Response credentials_reply(core::Context& ctx, const manage::ClientWithSecret& made) {
  http::JsonWriter w;
  success(w);
  w.key("client");
  write_client(w, made.client);
  if (!made.secret.empty()) w.kv("client_secret", made.secret);
  w.kv("issuer", oidc::issuer_of(ctx.config, made.client.site_id));
  return reply(w);
}

}  // namespace

http::Response oauth_clients_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  http::JsonWriter w;
  success(w);
  w.open_array("clients");
  for (const auto& c : manage::list_clients(ctx, actor)) write_client(w, c);
  w.close_array().kv("issuer", oidc::issuer_of(ctx.config, actor.site_id));
  return reply(w);
}

http::Response oauth_client_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const db::OAuthClient c = manage::find_client(ctx, actor, path_name(request, kClientSegment));
  http::JsonWriter w;
  success(w);
  w.key("client");
  write_client(w, c);
  return reply(w);
}

http::Response oauth_client_create(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kOwner);
  const auto& body = request.json;
  only_members(body, {"name", "redirect_uris", "post_logout_redirect_uris", "frontchannel_logout_uri", "public",
                      "first_party", "id_token_alg"});
  manage::NewClient spec;
  spec.name = nullable_string(body, "name", 190).value_or("");
  spec.redirect_uris = optional_strings(body, "redirect_uris", 20, 2048).value_or(std::vector<std::string>{});
  spec.post_logout_uris =
      optional_strings(body, "post_logout_redirect_uris", 20, 2048).value_or(std::vector<std::string>{});
  spec.frontchannel_logout_uri = nullable_string(body, "frontchannel_logout_uri", 2048).value_or("");
  spec.is_public = optional_bool(body, "public").value_or(false);
  spec.first_party = optional_bool(body, "first_party").value_or(false);
  spec.id_token_alg = nullable_string(body, "id_token_alg", 16).value_or("RS256");
  return credentials_reply(ctx, manage::create_client(ctx, actor, spec));
}

http::Response oauth_client_rotate_secret(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kOwner, Change::kDestructive);
  return credentials_reply(ctx, manage::rotate_client_secret(ctx, actor, path_name(request, kClientSegment)));
}

http::Response oauth_client_delete(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin, Change::kDestructive);
  const int ended = manage::delete_client(ctx, actor, path_name(request, kClientSegment));
  http::JsonWriter w;
  success(w);
  w.kv("sessions_ended", ended);
  return reply(w);
}

}  // namespace svc::manage_api
