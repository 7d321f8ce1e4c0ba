// /admin/sites/{site}/providers: the site's upstream providers ("Sign in
// with …", manage/providers.hpp).
#include "manage/providers.hpp"
#include "manage_api/body.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

// /admin/sites/{site}/providers/{name}: the name is segment 4.
constexpr size_t kProviderSegment = 4;

void write_provider(http::JsonWriter& w, core::Context& ctx, const db::UpstreamProvider& p) {
  w.open()
      .kv("name", p.name)
      .kv("type", p.type)
      .kv("issuer", upstream::identity_issuer(p))
      .kv("client_id", p.client_id)
      .kv("scopes", p.scopes)
      .kv("trust_email", p.trust_email)
      .kv("response_mode", p.response_mode)
      .kv("callback", upstream::callback_uri(ctx.config, p.site_id, p.name));
  // Apple's client secret is minted with a key: its team and key ids, never the key.
  if (p.team_id.empty()) {
    w.kv_null("team_id").kv_null("key_id");
  } else {
    w.kv("team_id", p.team_id).kv("key_id", p.key_id);
  }
  w.close();
}

}  // namespace

http::Response providers_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  http::JsonWriter w;
  success(w);
  w.open_array("providers");
  for (const auto& p : manage::list_providers(ctx, actor)) write_provider(w, ctx, p);
  w.close_array();
  return reply(w);
}

http::Response provider_add(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  const auto& body = request.json;
  only_members(body, {"name", "type", "issuer", "tenant", "client_id", "client_secret", "scopes", "trust_email",
                      "team_id", "key_id"});
  upstream::ProviderSpec spec;
  spec.name = nullable_string(body, "name", 32).value_or("");
  spec.type = nullable_string(body, "type", 16).value_or("");
  spec.issuer = nullable_string(body, "issuer", 512).value_or("");
  spec.tenant = nullable_string(body, "tenant", 64).value_or("");
  spec.client_id = nullable_string(body, "client_id", 255).value_or("");
  spec.client_secret = nullable_string(body, "client_secret", 8192).value_or("");
  spec.scopes = nullable_string(body, "scopes", 512).value_or("");
  spec.trust_email = optional_bool(body, "trust_email").value_or(false);
  spec.team_id = nullable_string(body, "team_id", 32).value_or("");
  spec.key_id = nullable_string(body, "key_id", 32).value_or("");
  const db::UpstreamProvider p = manage::add_provider(ctx, actor, spec);
  http::JsonWriter w;
  success(w);
  w.key("provider");
  write_provider(w, ctx, p);
  return reply(w);
}

http::Response provider_remove(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  manage::remove_provider(ctx, actor, path_name(request, kProviderSegment));
  http::JsonWriter w;
  success(w);
  return reply(w);
}

}  // namespace svc::manage_api
