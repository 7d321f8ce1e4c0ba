#pragma once
// A site's upstream identity providers as `svc-admin site provider add`
// makes them (design "Upstream sign-in"): the presets (google, microsoft,
// apple, gitlab: OpenID Connect with their endpoints and quirks; github:
// OAuth 2 and its API), or any OpenID Connect issuer found by discovery.
// One implementation for svc-admin and, later, the management API.

#include <optional>
#include <string>

#include "config/config.hpp"
#include "db/database.hpp"
#include "db/upstream_repo.hpp"

namespace svc::upstream {

struct ProviderSpec {
  long long site_id = 0;
  std::string name;           // [a-z0-9-]{1,32}; a preset's name gives its defaults
  std::string type;           // "oidc" | "github" ("" = the preset's)
  std::string issuer;         // oidc: discovery at {issuer}/.well-known/openid-configuration
  std::string tenant;         // microsoft: "common" (default), "organizations", "consumers" or a tenant id
  std::string api_url;        // github: https://api.github.com by default
  std::string authorize_url;  // github: https://github.com/login/oauth/authorize by default
  std::string token_url;      // github: https://github.com/login/oauth/access_token by default
  std::string client_id;
  std::string client_secret;  // plain; sealed before it is stored
  std::string scopes;         // "" = the type's default
  bool trust_email = false;
  // Apple: the secret is the .p8 key, and svc mints the client secret JWT
  // with these (upstream/apple_secret.hpp). Both or neither; oidc only.
  std::string team_id;
  std::string key_id;
};

// Validates, completes (preset or discovery) and stores the provider;
// throws std::invalid_argument with a message for the operator on a bad
// spec, std::runtime_error when discovery fails or the name is taken.
db::UpstreamProvider add_provider(const config::Config& config, db::Database& db, const ProviderSpec& spec,
                                  long long now);

// The redirect URI to register at the provider:
// {site issuer}/upstream/{name}/callback.
std::string callback_uri(const config::Config& config, long long site_id, const std::string& name);

// Whether `name` may name a provider ([a-z0-9-], 1 to 32 characters).
bool valid_name(const std::string& name);

// The provider's client secret, opened; nullopt when it does not open.
std::optional<std::string> client_secret(const config::Config& config, const db::UpstreamProvider& provider);

// The client_secret to send to the token endpoint at `now`: the opened
// secret, or for a provider with a team id (Apple) a JWT minted with it;
// nullopt when the secret does not open or the key does not load.
std::optional<std::string> token_request_secret(const config::Config& config, const db::UpstreamProvider& provider,
                                                long long now);

// The issuer identities are keyed by: the ID token's issuer, or GitHub's API URL.
std::string identity_issuer(const db::UpstreamProvider& provider);

}  // namespace svc::upstream
