#pragma once
// The OpenID Connect provider's rows (sql/025_oidc.sql, issue 39): clients,
// authorization requests waiting on the hosted pages, codes, grants, single
// sign-on cookies and consents. Every secret (client secret, code, cookie)
// is stored only as the SHA-256 hex the caller computed. Times are unix
// seconds.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/session_repo.hpp"
#include "db/site_repo.hpp"
#include "db/user_repo.hpp"

namespace svc::db {

struct OAuthClient {
  std::string client_id;
  long long site_id = 0;
  std::string name;
  std::string secret_hash;  // "" for a public client
  std::vector<std::string> redirect_uris;
  std::vector<std::string> post_logout_uris;
  bool is_public = false;
  bool first_party = false;
  long long created_at = 0;
  // Front-Channel Logout 1.0: loaded in an iframe of the end-session page; "" = none.
  std::string frontchannel_logout_uri;
  std::string id_token_alg = "RS256";  // "RS256" | "ES256" | "EdDSA" (crypto::alg_name)
};

// What the authorization endpoint accepted, waiting for the user.
struct OAuthRequest {
  std::string id;
  long long site_id = 0;
  std::string client_id;
  std::string redirect_uri;
  std::string scope;
  std::string state;
  std::string nonce;
  std::string code_challenge;  // S256; "" = none
  std::string prompt;
  std::optional<long long> max_age;
  std::string login_hint;
  std::string ui_locales;
  std::string browser_hash;
  long long created_at = 0;
  long long expires_at = 0;
  std::optional<long long> done_at;
};

struct OAuthCode {
  std::string code_hash;
  long long site_id = 0;
  std::string client_id;
  std::string redirect_uri;
  std::string code_challenge;
  std::string scope;
  std::string nonce;
  std::string session_id;
  long long created_at = 0;
  long long expires_at = 0;
  std::optional<long long> used_at;
};

// A code taken for its exchange (deleted: a code is good once), with the
// session it was issued for and that session's user, read in the same
// statement. No session when that row is gone; no user when the session is
// not of the table the take was asked for (or the user is gone).
struct TakenCode {
  OAuthCode code;
  std::optional<SessionRow> session;
  std::optional<User> user;
};

struct OAuthGrant {
  std::string session_id;
  long long site_id = 0;
  std::string client_id;
  std::string scope;
  std::string sso_session_id;
  long long created_at = 0;
  // The SHA-256 hex of the code the grant was issued with (written, for
  // OAuthRepo::session_of_code; "" = none).
  std::string code_hash;
};

class OAuthRepo {
 public:
  explicit OAuthRepo(Database& db) : db_(db) {}

  void insert_client(const OAuthClient& client);
  std::optional<OAuthClient> find_client(const std::string& client_id);
  // Every client of `site_id` (0 = every site), oldest first.
  std::vector<OAuthClient> clients(long long site_id);
  bool set_secret_hash(const std::string& client_id, const std::string& secret_hash);
  // The client, its codes, consents and waiting requests; its grants' svc
  // sessions are the caller's to end first (grant_sessions).
  bool delete_client(const std::string& client_id);
  std::vector<std::string> client_sessions(const std::string& client_id);

  void insert_request(const OAuthRequest& request);
  std::optional<OAuthRequest> find_request(const std::string& id);
  // Marks it done; true when this call did (one conditional UPDATE).
  bool finish_request(const std::string& id, long long now);

  void insert_code(const OAuthCode& code);
  // Deletes site `site_id`'s code and returns it with its session's row
  // and, when the session is of `users`' table, its user: one statement
  // (DELETE ... RETURNING), the exchange's only one. Of two callers only
  // one gets it.
  std::optional<TakenCode> take_code(const std::string& code_hash, long long site_id, UserRepo& users);
  // The session a code of site `site_id` was issued for, through its grant:
  // what a code that comes back after it was taken names (RFC 6749 4.1.2).
  // nullopt when no grant of the site was issued with the code or its
  // session row is gone.
  std::optional<SessionRow> session_of_code(const std::string& code_hash, long long site_id);

  void insert_grant(const OAuthGrant& grant);
  std::optional<OAuthGrant> find_grant(const std::string& session_id);
  // The grants from single sign-on session `sso_session_id` (oldest first).
  std::vector<OAuthGrant> sso_grants(const std::string& sso_session_id);

  void insert_sso(const std::string& cookie_hash, long long site_id, const std::string& session_id, long long now);
  // The svc session the cookie names on `site_id`; nullopt when none.
  // The session of a single sign-on cookie set on `site`, or, outside the
  // default pool, on any site of its pool (oidc/issuer.hpp sso_cookie_name).
  std::optional<std::string> find_sso(const std::string& cookie_hash, const Site& site);
  void delete_sso(const std::string& cookie_hash);

  // The scopes (space-separated, sorted) the user consented to for the client.
  std::optional<std::string> consent(const std::string& table, long long user_id, const std::string& client_id);
  void save_consent(const std::string& table, long long user_id, const std::string& client_id, const std::string& scope,
                    long long now);

 private:
  Database& db_;
};

}  // namespace svc::db
