#include "manage/oauth_clients.hpp"

#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/signing_key.hpp"
#include "db/session_repo.hpp"
#include "http/api_error.hpp"
#include "manage/audit.hpp"
#include "oidc/clients.hpp"
#include "oidc/issuer.hpp"
#include "webhooks/events.hpp"

namespace svc::manage {
namespace {

[[noreturn]] void not_found() { throw http::ApiError::failed(404, "Client not found"); }

std::string target_of(const std::string& client_id) { return "client " + client_id; }

db::OAuthClient without_secret(db::OAuthClient c) {
  c.secret_hash.clear();
  return c;
}

db::OAuthClient site_client(core::Context& ctx, const Actor& actor, const std::string& client_id) {
  auto c = client_id.empty() || client_id.size() > 64 ? std::nullopt : db::OAuthRepo(ctx.db).find_client(client_id);
  if (!c || c->site_id != actor.site_id) not_found();
  return *c;
}

void check_uris(const std::vector<std::string>& uris, const char* field) {
  for (const std::string& uri : uris) {
    if (const std::string problem = oidc::redirect_uri_problem(uri); !problem.empty()) {
      throw http::ApiError::validation(field, core::mask_controls(uri) + ": " + problem);
    }
  }
}

void check_client(const NewClient& spec) {
  if (spec.name.empty() || spec.name.size() > 190 || core::has_controls(spec.name)) {
    throw http::ApiError::validation("name", "name must be 1 to 190 characters");
  }
  if (spec.redirect_uris.empty()) throw http::ApiError::validation("redirect_uris", "give one or more redirect URIs");
  if (spec.redirect_uris.size() > 20 || spec.post_logout_uris.size() > 20) {
    throw http::ApiError::validation("redirect_uris", "at most 20 URIs of each kind");
  }
  check_uris(spec.redirect_uris, "redirect_uris");
  check_uris(spec.post_logout_uris, "post_logout_redirect_uris");
  if (!spec.frontchannel_logout_uri.empty()) {
    const std::string problem = oidc::frontchannel_uri_problem(spec.frontchannel_logout_uri, spec.redirect_uris);
    if (!problem.empty()) {
      throw http::ApiError::validation("frontchannel_logout_uri",
                                       core::mask_controls(spec.frontchannel_logout_uri) + ": " + problem);
    }
  }
  if (!crypto::parse_alg(spec.id_token_alg)) {
    throw http::ApiError::validation("id_token_alg", "id_token_alg expects RS256, ES256 or EdDSA, got '" +
                                                         core::mask_controls(spec.id_token_alg.substr(0, 32)) + "'");
  }
}

}  // namespace

std::vector<db::OAuthClient> list_clients(core::Context& ctx, const Actor& actor) {
  std::vector<db::OAuthClient> out;
  for (auto& c : db::OAuthRepo(ctx.db).clients(actor.site_id)) out.push_back(without_secret(std::move(c)));
  return out;
}

db::OAuthClient find_client(core::Context& ctx, const Actor& actor, const std::string& client_id) {
  return without_secret(site_client(ctx, actor, client_id));
}

ClientWithSecret create_client(core::Context& ctx, const Actor& actor, const NewClient& spec) {
  require_role(actor, Role::kOwner);
  check_client(spec);
  db::OAuthClient client;
  client.site_id = actor.site_id;
  client.name = spec.name;
  client.redirect_uris = spec.redirect_uris;
  client.post_logout_uris = spec.post_logout_uris;
  client.frontchannel_logout_uri = spec.frontchannel_logout_uri;
  client.is_public = spec.is_public;
  client.first_party = spec.first_party;
  client.id_token_alg = spec.id_token_alg;
  client.client_id = oidc::new_client_id();
  const std::string secret = client.is_public ? "" : oidc::new_client_secret();
  client.secret_hash = secret.empty() ? "" : oidc::hash_hex(secret);
  client.created_at = ctx.clock.now();
  webhooks::atomically(ctx.db, [&] {
    db::OAuthRepo(ctx.db).insert_client(client);
    audit(ctx, actor, "oauth_clients.create", target_of(client.client_id),
          std::string(client.is_public ? "public" : "confidential") + ", " + core::mask_controls(client.name));
    return true;
  });
  return {without_secret(client), secret};
}

ClientWithSecret rotate_client_secret(core::Context& ctx, const Actor& actor, const std::string& client_id) {
  require_role(actor, Role::kOwner);
  const db::OAuthClient c = site_client(ctx, actor, client_id);
  if (c.is_public) throw http::ApiError::failed(409, "A public client has no secret");
  const std::string secret = oidc::new_client_secret();
  webhooks::atomically(ctx.db, [&] {
    db::OAuthRepo(ctx.db).set_secret_hash(client_id, oidc::hash_hex(secret));
    audit(ctx, actor, "oauth_clients.rotate_secret", target_of(client_id));
    return true;
  });
  return {without_secret(c), secret};
}

int delete_client(core::Context& ctx, const Actor& actor, const std::string& client_id) {
  require_role(actor, Role::kAdmin);
  site_client(ctx, actor, client_id);
  return webhooks::atomically(ctx.db, [&] {
    db::OAuthRepo repo(ctx.db);
    db::SessionRepo sessions(ctx.db);
    const long long now = ctx.clock.now();
    int ended = 0;
    for (const std::string& sid : repo.client_sessions(client_id)) ended += sessions.revoke(sid, now, "client_deleted");
    repo.delete_client(client_id);
    audit(ctx, actor, "oauth_clients.delete", target_of(client_id), std::to_string(ended) + " session(s) ended");
    return ended;
  });
}

long long client_site(core::Context& ctx, const std::string& client_id) {
  auto c = client_id.empty() || client_id.size() > 64 ? std::nullopt : db::OAuthRepo(ctx.db).find_client(client_id);
  if (!c) not_found();
  return c->site_id;
}

}  // namespace svc::manage
