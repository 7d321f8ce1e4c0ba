#include "admin/oauth_client_commands.hpp"

#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "crypto/signing_key.hpp"
#include "db/oauth_repo.hpp"
#include "db/session_repo.hpp"
#include "db/signing_key_repo.hpp"
#include "http/json.hpp"
#include "oidc/clients.hpp"
#include "oidc/issuer.hpp"

namespace svc::admin {
namespace {

// The CLIENT_ID of `oauth-client VERB CLIENT_ID`.
std::string client_word(const Args& args, const char* verb) {
  const auto& words = args.words();
  if (words.size() != 3) throw UsageError(std::string("oauth-client ") + verb + " takes one client id");
  return words[2];
}

db::OAuthClient existing(db::OAuthRepo& repo, const std::string& client_id) {
  auto client = repo.find_client(client_id);
  if (!client) throw std::runtime_error("no OAuth client " + client_id);
  return *client;
}

std::vector<std::string> checked_uris(const Args& args, const std::string& option) {
  std::vector<std::string> uris = args.all(option);
  for (const std::string& uri : uris) {
    if (const std::string problem = oidc::redirect_uri_problem(uri); !problem.empty()) {
      throw UsageError("--" + option + " " + uri + ": " + problem);
    }
  }
  return uris;
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
  db::OAuthClient client;
  client.name = args.required("name");
  if (client.name.empty() || client.name.size() > 190) throw UsageError("--name must be 1 to 190 characters");
  client.redirect_uris = checked_uris(args, "redirect-uri");
  if (client.redirect_uris.empty()) throw UsageError("missing --redirect-uri (give one or more)");
  client.post_logout_uris = checked_uris(args, "post-logout-redirect-uri");
  if (auto uri = args.get("frontchannel-logout-uri")) {
    if (const std::string problem = oidc::frontchannel_uri_problem(*uri, client.redirect_uris); !problem.empty()) {
      throw UsageError("--frontchannel-logout-uri " + *uri + ": " + problem);
    }
    client.frontchannel_logout_uri = *uri;
  }
  client.is_public = args.flag("public");
  client.first_party = args.flag("first-party");
  client.id_token_alg = args.get("id-token-alg").value_or("RS256");
  if (!crypto::parse_alg(client.id_token_alg)) {
    throw UsageError("--id-token-alg expects RS256, ES256 or EdDSA, got '" + client.id_token_alg + "'");
  }
  CommandEnv env(config_path);
  env.site(site_id);
  client.site_id = site_id;
  client.client_id = oidc::new_client_id();
  const std::string secret = client.is_public ? "" : oidc::new_client_secret();
  client.secret_hash = secret.empty() ? "" : oidc::hash_hex(secret);
  client.created_at = static_cast<long long>(std::time(nullptr));
  db::OAuthRepo(env.db).insert_client(client);
  warn_without_key(env, client.id_token_alg, client.created_at);
  print_credentials(args.flag("json"), client.client_id, secret, oidc::issuer_of(env.config, site_id));
  return 0;
}

int cmd_oauth_client_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  const long long site_id = args.integer("site", 0);
  CommandEnv env(config_path);
  const auto clients = db::OAuthRepo(env.db).clients(site_id);
  return print_listing(clients, "no OAuth clients", "client_id\tsite\ttype\tfirst_party\tname", [](const auto& c) {
    std::printf("%s\t%lld\t%s\t%s\t%s\n", c.client_id.c_str(), c.site_id, c.is_public ? "public" : "confidential",
                c.first_party ? "yes" : "no", c.name.c_str());
  });
}

int cmd_oauth_client_show(const Args& args, const std::string& config_path) {
  args.allow_only({});
  const std::string client_id = client_word(args, "show");
  CommandEnv env(config_path);
  db::OAuthRepo repo(env.db);
  const db::OAuthClient c = existing(repo, client_id);
  std::printf("client_id %s\nsite %lld\nname %s\ntype %s\nfirst_party %s\nid_token_alg %s\nissuer %s\n",
              c.client_id.c_str(), c.site_id, c.name.c_str(), c.is_public ? "public" : "confidential",
              c.first_party ? "yes" : "no", c.id_token_alg.c_str(), oidc::issuer_of(env.config, c.site_id).c_str());
  for (const std::string& uri : c.redirect_uris) std::printf("redirect_uri %s\n", uri.c_str());
  for (const std::string& uri : c.post_logout_uris) std::printf("post_logout_redirect_uri %s\n", uri.c_str());
  if (!c.frontchannel_logout_uri.empty())
    std::printf("frontchannel_logout_uri %s\n", c.frontchannel_logout_uri.c_str());
  return 0;
}

int cmd_oauth_client_rotate_secret(const Args& args, const std::string& config_path) {
  args.allow_only({"json"});
  const std::string client_id = client_word(args, "rotate-secret");
  CommandEnv env(config_path);
  db::OAuthRepo repo(env.db);
  const db::OAuthClient c = existing(repo, client_id);
  if (c.is_public) throw std::runtime_error("client " + client_id + " is public: it has no secret");
  const std::string secret = oidc::new_client_secret();
  repo.set_secret_hash(client_id, oidc::hash_hex(secret));
  print_credentials(args.flag("json"), client_id, secret, oidc::issuer_of(env.config, c.site_id));
  return 0;
}

int cmd_oauth_client_delete(const Args& args, const std::string& config_path) {
  args.allow_only({});
  const std::string client_id = client_word(args, "delete");
  CommandEnv env(config_path);
  db::OAuthRepo repo(env.db);
  existing(repo, client_id);
  db::SessionRepo sessions(env.db);
  const long long now = static_cast<long long>(std::time(nullptr));
  int ended = 0;
  for (const std::string& sid : repo.client_sessions(client_id)) ended += sessions.revoke(sid, now, "client_deleted");
  repo.delete_client(client_id);
  std::printf("OAuth client %s deleted; %d session(s) ended\n", client_id.c_str(), ended);
  return 0;
}

}  // namespace svc::admin
