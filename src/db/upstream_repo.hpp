#pragma once
// Upstream sign-in's tables (sql/041_upstream.sql): a site's providers, the
// users' identities at them, the flows under way and the identities waiting
// to be linked; and the site's sign-up setting.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

struct UpstreamProvider {
  long long id = 0;
  long long site_id = 0;
  std::string name;
  std::string type;  // "oidc" | "github"
  std::string issuer;
  std::string authorize_url;
  std::string token_url;
  std::string jwks_url;
  std::string api_url;  // github: https://api.github.com
  std::string client_id;
  std::string client_secret;  // sealed (webhooks/signature.hpp seal_secret)
  std::string scopes;
  bool trust_email = false;
  std::string response_mode = "query";  // or "form_post"
  std::string team_id;                  // Apple: the client secret is a JWT minted with the key of client_secret
  std::string key_id;                   // (upstream/apple_secret.hpp); both empty otherwise
};

struct UserIdentity {
  long long id = 0;
  long long pool_id = 0;
  std::string issuer;
  std::string subject;
  std::string table;
  long long user_id = 0;
  std::string provider;
  std::string email;
  long long created_at = 0;
  long long last_used_at = 0;
};

struct UpstreamFlow {
  std::string state_hash;
  long long site_id = 0;
  long long provider_id = 0;
  std::string browser_hash;
  std::string nonce;
  std::string verifier;
  std::string request_id;  // the hosted page's authorization request
  std::string return_to;   // the JSON API's
  std::string link_table;  // account centre: link to this user
  long long link_user_id = 0;
  long long expires_at = 0;
};

struct UpstreamPending {
  std::string token_hash;
  std::string kind;  // "link" (by authorization request id) | "code" (JSON API)
  long long site_id = 0;
  long long provider_id = 0;
  std::string subject;
  std::string email;
  std::string table;
  long long user_id = 0;
  std::string session_id;
  long long expires_at = 0;
};

class UpstreamRepo {
 public:
  explicit UpstreamRepo(Database& db) : db_(db) {}

  // Providers. add: the new id, nullopt when the site has one by that name.
  std::optional<long long> add_provider(const UpstreamProvider& p, long long now);
  std::vector<UpstreamProvider> providers(long long site_id);
  std::optional<UpstreamProvider> provider(long long site_id, const std::string& name);
  std::optional<UpstreamProvider> provider_by_id(long long id);
  bool remove_provider(long long site_id, const std::string& name);

  // Identities.
  std::optional<UserIdentity> identity(long long pool_id, const std::string& issuer, const std::string& subject);
  std::vector<UserIdentity> identities_of(const std::string& table, long long user_id);
  // false when (pool, issuer, subject) is linked already.
  bool link(const UserIdentity& identity);
  bool unlink(const std::string& table, long long user_id, long long identity_id);
  void touch(long long identity_id, long long now);

  // Flows: insert, and take (spend) by state hash: nullopt when unknown,
  // spent or expired.
  void insert_flow(const UpstreamFlow& flow);
  std::optional<UpstreamFlow> take_flow(const std::string& state_hash, long long now);

  void insert_pending(const UpstreamPending& pending);
  std::optional<UpstreamPending> take_pending(const std::string& token_hash, const std::string& kind, long long now);

  // site set --signup open|closed (svc_sites.signup_open).
  bool signup_open(long long site_id);
  void set_signup_open(long long site_id, bool open);

 private:
  Database& db_;
};

}  // namespace svc::db
