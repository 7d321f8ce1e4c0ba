// The presets' endpoints are the providers' published ones, so adding
// Google, Microsoft, Apple or GitLab needs no network call; a custom
// issuer is read from its discovery document once, at add time.

#include "upstream/providers.hpp"

#include <stdexcept>

#include "crypto/json_object.hpp"
#include "crypto/pkcs8_key.hpp"
#include "upstream/apple_secret.hpp"
#include "upstream/http_client.hpp"
#include "webhooks/client.hpp"
#include "webhooks/signature.hpp"

namespace svc::upstream {
namespace {

struct Preset {
  const char* name;
  const char* issuer;
  const char* authorize_url;
  const char* token_url;
  const char* jwks_url;
  const char* response_mode;
};

// {tenant} is the microsoft --tenant; its issuer's {tenantid} the token's tid.
constexpr Preset kPresets[] = {
    {"google", "https://accounts.google.com", "https://accounts.google.com/o/oauth2/v2/auth",
     "https://oauth2.googleapis.com/token", "https://www.googleapis.com/oauth2/v3/certs", "query"},
    {"microsoft", "https://login.microsoftonline.com/{tenantid}/v2.0",
     "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
     "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
     "https://login.microsoftonline.com/{tenant}/discovery/v2.0/keys", "query"},
    {"apple", "https://appleid.apple.com", "https://appleid.apple.com/auth/authorize",
     "https://appleid.apple.com/auth/token", "https://appleid.apple.com/auth/keys", "form_post"},
    {"gitlab", "https://gitlab.com", "https://gitlab.com/oauth/authorize", "https://gitlab.com/oauth/token",
     "https://gitlab.com/oauth/discovery/keys", "query"},
};

std::string replaced(std::string text, const std::string& marker, const std::string& value) {
  const std::size_t at = text.find(marker);
  return at == std::string::npos ? text : text.replace(at, marker.size(), value);
}

void check_url(const config::Config& config, const std::string& what, const std::string& url) {
  const webhooks::WebhookOptions options{config.push.allow_insecure_endpoints, config.push.allowed_ports};
  if (const std::string problem = webhooks::url_problem(url, options); !problem.empty()) {
    throw std::invalid_argument(what + " refused: " + problem);
  }
}

// The endpoints of `issuer` from its discovery document.
void discover(const config::Config& config, db::UpstreamProvider& p) {
  std::string base = p.issuer;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const std::string url = base + "/.well-known/openid-configuration";
  check_url(config, "--issuer", url);
  const Fetched reply = fetch(config, {url, "", {}});
  if (!reply.ok()) throw std::runtime_error("discovery at " + url + " failed: " + reply.detail);
  auto doc = crypto::parse_json_object(reply.body);
  std::string issuer;
  if (!doc || !crypto::read_string(*doc, "issuer", issuer, crypto::Member::kRequired) ||
      !crypto::read_string(*doc, "authorization_endpoint", p.authorize_url, crypto::Member::kRequired) ||
      !crypto::read_string(*doc, "token_endpoint", p.token_url, crypto::Member::kRequired) ||
      !crypto::read_string(*doc, "jwks_uri", p.jwks_url, crypto::Member::kRequired)) {
    throw std::runtime_error("discovery at " + url + " is not an OpenID Provider configuration");
  }
  // OpenID Connect Discovery 4.3: the document's issuer is the one asked for.
  if (issuer != p.issuer) throw std::runtime_error("discovery at " + url + " names another issuer: " + issuer);
}

}  // namespace

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

std::string callback_uri(const config::Config& config, long long site_id, const std::string& name) {
  // The site's OpenID Connect issuer (oidc/issuer.hpp issuer_of) and the path.
  return config.tokens.oidc_base() + "/oidc/" + std::to_string(site_id) + "/upstream/" + name + "/callback";
}

std::optional<std::string> client_secret(const config::Config& config, const db::UpstreamProvider& provider) {
  return webhooks::open_secret(provider.client_secret, config.keys.webhook_key, provider.site_id);
}

std::optional<std::string> token_request_secret(const config::Config& config, const db::UpstreamProvider& provider,
                                                long long now) {
  auto secret = client_secret(config, provider);
  if (!secret || provider.team_id.empty()) return secret;
  try {
    return apple_client_secret(*secret, provider.team_id, provider.key_id, provider.client_id, now);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

std::string identity_issuer(const db::UpstreamProvider& provider) {
  return provider.type == "github" ? provider.api_url : provider.issuer;
}

db::UpstreamProvider add_provider(const config::Config& config, db::Database& db, const ProviderSpec& spec,
                                  long long now) {
  if (!valid_name(spec.name)) throw std::invalid_argument("--name: 1 to 32 of a-z, 0-9 and -");
  if (spec.client_id.empty() || spec.client_id.size() > 255) throw std::invalid_argument("--client-id is needed");
  if (spec.client_secret.empty()) throw std::invalid_argument("--client-secret-file holds no secret");
  if (config.keys.webhook_key.empty()) {
    throw std::runtime_error("[keys] webhook_key is not set (svc-admin keygen prints one): it seals the secret");
  }
  db::UpstreamProvider p;
  p.site_id = spec.site_id;
  p.name = spec.name;
  p.client_id = spec.client_id;
  p.trust_email = spec.trust_email;
  const Preset* preset = nullptr;
  for (const Preset& candidate : kPresets) {
    if (spec.name == candidate.name) preset = &candidate;
  }
  const bool github = spec.type == "github" || (spec.type.empty() && spec.name == "github");
  if (github) {
    p.type = "github";
    p.api_url = spec.api_url.empty() ? "https://api.github.com" : spec.api_url;
    p.authorize_url = spec.authorize_url.empty() ? "https://github.com/login/oauth/authorize" : spec.authorize_url;
    p.token_url = spec.token_url.empty() ? "https://github.com/login/oauth/access_token" : spec.token_url;
    p.scopes = spec.scopes.empty() ? "read:user user:email" : spec.scopes;
    while (!p.api_url.empty() && p.api_url.back() == '/') p.api_url.pop_back();
  } else if (spec.type == "oidc" || spec.type.empty()) {
    p.type = "oidc";
    p.scopes = spec.scopes.empty() ? "openid email profile" : spec.scopes;
    if (preset && spec.issuer.empty()) {
      const std::string tenant = spec.tenant.empty() ? "common" : spec.tenant;
      p.issuer = preset->issuer;
      p.authorize_url = replaced(preset->authorize_url, "{tenant}", tenant);
      p.token_url = replaced(preset->token_url, "{tenant}", tenant);
      p.jwks_url = replaced(preset->jwks_url, "{tenant}", tenant);
      p.response_mode = preset->response_mode;
      // A single tenant's tokens name it; the multi-tenant names fill in tid.
      if (spec.tenant != "" && spec.tenant != "common" && spec.tenant != "organizations" &&
          spec.tenant != "consumers") {
        p.issuer = replaced(p.issuer, "{tenantid}", spec.tenant);
      }
      if (spec.name == "apple") p.scopes = spec.scopes.empty() ? "openid email name" : spec.scopes;
    } else {
      if (spec.issuer.empty()) throw std::invalid_argument("--issuer is needed for an oidc provider without a preset");
      p.issuer = spec.issuer;
      discover(config, p);
    }
    if (p.scopes.find("openid") == std::string::npos) throw std::invalid_argument("--scopes must hold openid");
  } else {
    throw std::invalid_argument("--type is oidc or github");
  }
  for (const auto& [what, url] : {std::pair<std::string, std::string>{"the authorization endpoint", p.authorize_url},
                                  {"the token endpoint", p.token_url},
                                  {"the JWKS", p.jwks_url},
                                  {"--api-url", p.api_url}}) {
    if (!url.empty() && url.find('{') == std::string::npos) check_url(config, what, url);
  }
  if (!spec.team_id.empty() || !spec.key_id.empty()) {
    if (p.type != "oidc")
      throw std::invalid_argument("--team-id and --key-id are for an OpenID Connect provider (apple)");
    if (!valid_apple_id(spec.team_id)) throw std::invalid_argument("--team-id: 1 to 32 letters and digits");
    if (!valid_apple_id(spec.key_id)) throw std::invalid_argument("--key-id: 1 to 32 letters and digits");
    if (!crypto::es256_from_pkcs8_pem(spec.client_secret)) {
      throw std::invalid_argument("--client-secret-file: not a P-256 key in PKCS#8 PEM (Apple's .p8 file)");
    }
    p.team_id = spec.team_id;
    p.key_id = spec.key_id;
  }
  p.client_secret = webhooks::seal_secret(spec.client_secret, config.keys.webhook_key, spec.site_id);
  auto id = db::UpstreamRepo(db).add_provider(p, now);
  if (!id) throw std::runtime_error("the site has a provider named " + spec.name + " already");
  p.id = *id;
  return p;
}

}  // namespace svc::upstream
