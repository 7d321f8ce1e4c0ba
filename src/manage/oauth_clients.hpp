#pragma once
// The OAuth clients capability of site management (design "Site
// administrators and the site management API", docs/oidc.md): the site's
// OpenID Connect clients, for /admin/sites/{site}/oauth-clients and
// `svc-admin oauth-client create|list|show|rotate-secret|delete`. A secret
// is shown once and stored as its SHA-256; a client of another site is not
// found (404 "Client not found"), never touched. Workers cache clients for
// [server] site_cache_seconds (oidc/client_cache.hpp).

#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/oauth_repo.hpp"
#include "manage/actor.hpp"

namespace svc::manage {

// What a new client is: name (1..190), redirect URIs (one or more),
// post-logout URIs, front-channel logout URI, public or confidential,
// first party (no consent page), the ID token's algorithm.
struct NewClient {
  std::string name;
  std::vector<std::string> redirect_uris;
  std::vector<std::string> post_logout_uris;
  std::string frontchannel_logout_uri;
  bool is_public = false;
  bool first_party = false;
  std::string id_token_alg = "RS256";
};

struct ClientWithSecret {
  db::OAuthClient client;  // its secret hash cleared
  std::string secret;      // "" for a public client
};

// The site's clients, oldest first, without secret hashes; every site's
// for the operator on site 0 (`oauth-client list` without --site). Any role.
std::vector<db::OAuthClient> list_clients(core::Context& ctx, const Actor& actor);
// One client of the site; 404 for any other id. Any role.
db::OAuthClient find_client(core::Context& ctx, const Actor& actor, const std::string& client_id);

// Checks `spec` (400 naming the field: "name", "redirect_uris",
// "post_logout_redirect_uris", "frontchannel_logout_uri", "id_token_alg")
// and registers it; audit "oauth_clients.create". Role owner (it makes a
// secret).
ClientWithSecret create_client(core::Context& ctx, const Actor& actor, const NewClient& spec);
// A new secret at once (the old one stops working); 409 for a public
// client; audit "oauth_clients.rotate_secret". Role owner.
ClientWithSecret rotate_client_secret(core::Context& ctx, const Actor& actor, const std::string& client_id);
// Ends every session granted to the client (its refresh tokens stop), then
// removes it, its codes and consents; returns how many sessions ended;
// audit "oauth_clients.delete". Role admin.
int delete_client(core::Context& ctx, const Actor& actor, const std::string& client_id);

// The site of client `client_id`, for svc-admin's commands that name only
// the client; 404 "Client not found" when there is none.
long long client_site(core::Context& ctx, const std::string& client_id);

}  // namespace svc::manage
