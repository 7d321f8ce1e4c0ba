#include "admin/oauth_client_commands.hpp"

#include <cstdio>

#include "admin/listing.hpp"
#include "admin/operator_env.hpp"
#include "db/signing_key_repo.hpp"
#include "http/json.hpp"
#include "manage/oauth_clients.hpp"
#include "oidc/issuer.hpp"

namespace svc::admin {
namespace {

// The CLIENT_ID of `oauth-client VERB CLIENT_ID`.
std::string client_word(const Args& args, const char* verb) {
  const auto& words = args.words();
  if (words.size() != 3) throw UsageError(std::string("oauth-client ") + verb + " takes one client id");
  return words[2];
}

// The options of `oauth-client create` by the fields the service's refusals
// name; longest field first.
const std::vector<std::pair<std::string, std::string>> kClientOptions = {
    {"post_logout_redirect_uris", "post-logout-redirect-uri"},
    {"frontchannel_logout_uri", "frontchannel-logout-uri"},
    {"redirect_uris", "redirect-uri"},
    {"id_token_alg", "id-token-alg"}};

// The operator on the site of the client a command names.
manage::Actor client_actor(OperatorEnv& o, const std::string& client_id) {
  return o.on_site(manage::client_site(o.ctx, client_id));
}

void print_credentials(bool json, const std::string& client_id, const std::string& secret,
                       const std::string& issuer_url) {
  if (json) {
    http::JsonWriter w;
    w.open().kv("client_id", client_id);
    if (!secret.empty()) w.kv("client_secret", secret);
    w.kv("issuer", issuer_url).close();
    std::printf("%s\n", w.str().c_str());
    return;
  }
  std::printf("client_id %s\n", client_id.c_str());
  if (!secret.empty()) std::printf("client_secret %s\n", secret.c_str());
  std::printf("issuer %s\n", issuer_url.c_str());
}

// An ID token of `alg` is signed with the newest active key of that
// algorithm; without one the token endpoint cannot answer this client.
void warn_without_key(CommandEnv& env, const std::string& alg, long long now) {
  for (const db::SigningKeyRow& row : db::SigningKeyRepo(env.db).published(now)) {
    if (row.alg == alg && row.activate_at <= now) return;
  }
  std::fprintf(stderr,
               "warning: no active %s signing key: this client's token requests fail until one is "
               "(svc-admin signing-keys rotate --alg %s --now)\n",
               alg.c_str(), alg.c_str());
}

}  // namespace

int cmd_oauth_client_create(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "name", "redirect-uri", "post-logout-redirect-uri", "frontchannel-logout-uri", "public",
                   "first-party", "id-token-alg", "json"});
  const long long site_id = args.required_integer("site");
  manage::NewClient spec;
  spec.name = args.required("name");
  spec.redirect_uris = args.all("redirect-uri");
  if (spec.redirect_uris.empty()) throw UsageError("missing --redirect-uri (give one or more)");
  spec.post_logout_uris = args.all("post-logout-redirect-uri");
  spec.frontchannel_logout_uri = args.get("frontchannel-logout-uri").value_or("");
  spec.is_public = args.flag("public");
  spec.first_party = args.flag("first-party");
  spec.id_token_alg = args.get("id-token-alg").value_or("RS256");
  OperatorEnv o(config_path);
  const manage::Actor actor = o.on_site(site_id);
  const auto created = naming_options(kClientOptions, [&] { return manage::create_client(o.ctx, actor, spec); });
  warn_without_key(o.env, spec.id_token_alg, created.client.created_at);
  print_credentials(args.flag("json"), created.client.client_id, created.secret,
                    oidc::issuer_of(o.env.config, site_id));
  return 0;
}

int cmd_oauth_client_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  const long long site_id = args.integer("site", 0);
  OperatorEnv o(config_path);
  // Site 0: every site's clients (the operator's listing).
  const manage::Actor actor = site_id != 0 ? o.on_site(site_id) : manage::Actor::operator_on(0, 0);
  const auto clients = manage::list_clients(o.ctx, actor);
  return print_listing(clients, "no OAuth clients", "client_id\tsite\ttype\tfirst_party\tname", [](const auto& c) {
    std::printf("%s\t%lld\t%s\t%s\t%s\n", c.client_id.c_str(), c.site_id, c.is_public ? "public" : "confidential",
                c.first_party ? "yes" : "no", c.name.c_str());
  });
}

int cmd_oauth_client_show(const Args& args, const std::string& config_path) {
  args.allow_only({});
  const std::string client_id = client_word(args, "show");
  OperatorEnv o(config_path);
  const db::OAuthClient c = manage::find_client(o.ctx, client_actor(o, client_id), client_id);
  std::printf("client_id %s\nsite %lld\nname %s\ntype %s\nfirst_party %s\nid_token_alg %s\nissuer %s\n",
              c.client_id.c_str(), c.site_id, c.name.c_str(), c.is_public ? "public" : "confidential",
              c.first_party ? "yes" : "no", c.id_token_alg.c_str(), oidc::issuer_of(o.env.config, c.site_id).c_str());
  std::printf("created %s\n", readable_time(c.created_at).c_str());
  for (const std::string& uri : c.redirect_uris) std::printf("redirect_uri %s\n", uri.c_str());
  for (const std::string& uri : c.post_logout_uris) std::printf("post_logout_redirect_uri %s\n", uri.c_str());
  if (!c.frontchannel_logout_uri.empty())
    std::printf("frontchannel_logout_uri %s\n", c.frontchannel_logout_uri.c_str());
  return 0;
}

int cmd_oauth_client_rotate_secret(const Args& args, const std::string& config_path) {
  args.allow_only({"json"});
  const std::string client_id = client_word(args, "rotate-secret");
  OperatorEnv o(config_path);
  const manage::Actor actor = client_actor(o, client_id);
  const auto rotated = manage::rotate_client_secret(o.ctx, actor, client_id);
  print_credentials(args.flag("json"), client_id, rotated.secret, oidc::issuer_of(o.env.config, actor.site_id));
  return 0;
}

int cmd_oauth_client_delete(const Args& args, const std::string& config_path) {
  args.allow_only({});
  const std::string client_id = client_word(args, "delete");
  OperatorEnv o(config_path);
  const int ended = manage::delete_client(o.ctx, client_actor(o, client_id), client_id);
  std::printf("OAuth client %s deleted; %d session(s) ended\n", client_id.c_str(), ended);
  return 0;
}

}  // namespace svc::admin
