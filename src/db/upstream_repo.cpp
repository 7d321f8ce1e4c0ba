#include "db/upstream_repo.hpp"

#include <cppconn/exception.h>

#include "db/row_reader.hpp"

namespace svc::db {
namespace {

constexpr int kDuplicateKey = 1062;  // ER_DUP_ENTRY

constexpr const char* kProviderColumns =
    "id, site_id, name, type, issuer, authorize_url, token_url, jwks_url, api_url, client_id, client_secret, scopes,"
    " trust_email, response_mode, team_id, key_id";
constexpr auto read_provider =
    read_fields<UpstreamProvider, &UpstreamProvider::id, &UpstreamProvider::site_id, &UpstreamProvider::name,
                &UpstreamProvider::type, &UpstreamProvider::issuer, &UpstreamProvider::authorize_url,
                &UpstreamProvider::token_url, &UpstreamProvider::jwks_url, &UpstreamProvider::api_url,
                &UpstreamProvider::client_id, &UpstreamProvider::client_secret, &UpstreamProvider::scopes,
                &UpstreamProvider::trust_email, &UpstreamProvider::response_mode, &UpstreamProvider::team_id,
                &UpstreamProvider::key_id>;

constexpr const char* kIdentityColumns =
    "id, pool_id, issuer, subject, auth_table, user_id, provider, email, created_at, last_used_at";
constexpr auto read_identity =
    read_fields<UserIdentity, &UserIdentity::id, &UserIdentity::pool_id, &UserIdentity::issuer, &UserIdentity::subject,
                &UserIdentity::table, &UserIdentity::user_id, &UserIdentity::provider, &UserIdentity::email,
                &UserIdentity::created_at, &UserIdentity::last_used_at>;

constexpr auto read_flow =
    read_fields<UpstreamFlow, &UpstreamFlow::state_hash, &UpstreamFlow::site_id, &UpstreamFlow::provider_id,
                &UpstreamFlow::browser_hash, &UpstreamFlow::nonce, &UpstreamFlow::verifier, &UpstreamFlow::request_id,
                &UpstreamFlow::return_to, &UpstreamFlow::link_table, &UpstreamFlow::link_user_id,
                &UpstreamFlow::expires_at>;

constexpr auto read_pending =
    read_fields<UpstreamPending, &UpstreamPending::token_hash, &UpstreamPending::kind, &UpstreamPending::site_id,
                &UpstreamPending::provider_id, &UpstreamPending::subject, &UpstreamPending::email,
                &UpstreamPending::table, &UpstreamPending::user_id, &UpstreamPending::session_id,
                &UpstreamPending::expires_at>;

}  // namespace

std::optional<long long> UpstreamRepo::add_provider(const UpstreamProvider& p, long long now) {
  try {
    db_.execute(
        "INSERT INTO svc_upstream_providers (site_id, name, type, issuer, authorize_url, token_url, jwks_url,"
        " api_url, client_id, client_secret, scopes, trust_email, response_mode, team_id, key_id, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [&](Params& b) {
          b.integer(p.site_id).text(p.name).text(p.type).text(p.issuer).text(p.authorize_url).text(p.token_url);
          b.text(p.jwks_url).text(p.api_url).text(p.client_id).text(p.client_secret).text(p.scopes);
          b.flag(p.trust_email).text(p.response_mode).text(p.team_id).text(p.key_id).integer(now);
        });
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kDuplicateKey) return std::nullopt;
    throw;
  }
  return db_.last_insert_id();
}

std::vector<UpstreamProvider> UpstreamRepo::providers(long long site_id) {
  return db_.rows(
      std::string("SELECT ") + kProviderColumns + " FROM svc_upstream_providers WHERE site_id = ? ORDER BY name",
      [&](Params& b) { b.integer(site_id); }, read_provider);
}

std::optional<UpstreamProvider> UpstreamRepo::provider(long long site_id, const std::string& name) {
  return db_.one(
      std::string("SELECT ") + kProviderColumns + " FROM svc_upstream_providers WHERE site_id = ? AND name = ?",
      [&](Params& b) { b.integer(site_id).text(name); }, read_provider);
}

std::optional<UpstreamProvider> UpstreamRepo::provider_by_id(long long id) {
  return db_.one(
      std::string("SELECT ") + kProviderColumns + " FROM svc_upstream_providers WHERE id = ?",
      [&](Params& b) { b.integer(id); }, read_provider);
}

bool UpstreamRepo::remove_provider(long long site_id, const std::string& name) {
  return db_.execute_idempotent("DELETE FROM svc_upstream_providers WHERE site_id = ? AND name = ?",
                                [&](Params& b) { b.integer(site_id).text(name); }) > 0;
}

std::optional<UserIdentity> UpstreamRepo::identity(long long pool_id, const std::string& issuer,
                                                   const std::string& subject) {
  return db_.one(
      std::string("SELECT ") + kIdentityColumns +
          " FROM svc_user_identities WHERE pool_id = ? AND issuer = ? AND subject = ?",
      [&](Params& b) { b.integer(pool_id).text(issuer).text(subject); }, read_identity);
}

std::vector<UserIdentity> UpstreamRepo::identities_of(const std::string& table, long long user_id) {
  return db_.rows(
      std::string("SELECT ") + kIdentityColumns +
          " FROM svc_user_identities WHERE auth_table = ? AND user_id = ? ORDER BY id",
      [&](Params& b) { b.text(table).integer(user_id); }, read_identity);
}

bool UpstreamRepo::link(const UserIdentity& i) {
  try {
    db_.execute(
        "INSERT INTO svc_user_identities (pool_id, issuer, subject, auth_table, user_id, provider, email,"
        " created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [&](Params& b) {
          b.integer(i.pool_id).text(i.issuer).text(i.subject).text(i.table).integer(i.user_id).text(i.provider);
          b.text(i.email).integer(i.created_at).integer(i.created_at);
        });
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kDuplicateKey) return false;
    throw;
  }
  return true;
}

bool UpstreamRepo::unlink(const std::string& table, long long user_id, long long identity_id) {
  return db_.execute("DELETE FROM svc_user_identities WHERE id = ? AND auth_table = ? AND user_id = ?",
                     [&](Params& b) { b.integer(identity_id).text(table).integer(user_id); }) > 0;
}

void UpstreamRepo::touch(long long identity_id, long long now) {
  db_.execute_idempotent("UPDATE svc_user_identities SET last_used_at = ? WHERE id = ?",
                         [&](Params& b) { b.integer(now).integer(identity_id); });
}

void UpstreamRepo::insert_flow(const UpstreamFlow& f) {
  db_.execute_idempotent(
      "INSERT IGNORE INTO svc_upstream_flows (state_hash, site_id, provider_id, browser_hash, nonce, verifier,"
      " request_id, return_to, link_table, link_user_id, expires_at, spent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "0)",
      [&](Params& b) {
        b.text(f.state_hash).integer(f.site_id).integer(f.provider_id).text(f.browser_hash).text(f.nonce);
        b.text(f.verifier).text(f.request_id).text(f.return_to).text(f.link_table).integer(f.link_user_id);
        b.integer(f.expires_at);
      });
  // Forget flows that ended an hour ago, a few at a time.
  db_.execute_idempotent("DELETE FROM svc_upstream_flows WHERE expires_at < ? LIMIT 100",
                         [&](Params& b) { b.integer(f.expires_at - 4200); });
}

std::optional<UpstreamFlow> UpstreamRepo::take_flow(const std::string& state_hash, long long now) {
  const int spent =
      db_.execute("UPDATE svc_upstream_flows SET spent = 1 WHERE state_hash = ? AND spent = 0 AND expires_at > ?",
                  [&](Params& b) { b.text(state_hash).integer(now); });
  if (spent != 1) return std::nullopt;
  return db_.one(
      "SELECT state_hash, site_id, provider_id, browser_hash, nonce, verifier, request_id, return_to, link_table,"
      " link_user_id, expires_at FROM svc_upstream_flows WHERE state_hash = ?",
      [&](Params& b) { b.text(state_hash); }, read_flow);
}

void UpstreamRepo::insert_pending(const UpstreamPending& p) {
  db_.execute_idempotent(
      "REPLACE INTO svc_upstream_pending (token_hash, kind, site_id, provider_id, subject, email, auth_table,"
      " user_id, session_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [&](Params& b) {
        b.text(p.token_hash).text(p.kind).integer(p.site_id).integer(p.provider_id).text(p.subject).text(p.email);
        b.text(p.table).integer(p.user_id).text(p.session_id).integer(p.expires_at);
      });
  db_.execute_idempotent("DELETE FROM svc_upstream_pending WHERE expires_at < ? LIMIT 100",
                         [&](Params& b) { b.integer(p.expires_at - 4200); });
}

std::optional<UpstreamPending> UpstreamRepo::take_pending(const std::string& token_hash, const std::string& kind,
                                                          long long now) {
  auto row = db_.one(
      "SELECT token_hash, kind, site_id, provider_id, subject, email, auth_table, user_id, session_id, expires_at"
      " FROM svc_upstream_pending WHERE token_hash = ? AND kind = ? AND expires_at > ?",
      [&](Params& b) { b.text(token_hash).text(kind).integer(now); }, read_pending);
  if (!row) return std::nullopt;
  const int gone =
      db_.execute("DELETE FROM svc_upstream_pending WHERE token_hash = ?", [&](Params& b) { b.text(token_hash); });
  if (gone != 1) return std::nullopt;  // another request took it
  return row;
}

bool UpstreamRepo::signup_open(long long site_id) {
  auto open = db_.one(
      "SELECT signup_open FROM svc_sites WHERE id = ?", [&](Params& b) { b.integer(site_id); },
      [](RowReader& r) { return r.flag(); });
  return open.value_or(false);
}

void UpstreamRepo::set_signup_open(long long site_id, bool open) {
  db_.execute_idempotent("UPDATE svc_sites SET signup_open = ? WHERE id = ?",
                         [&](Params& b) { b.flag(open).integer(site_id); });
}

}  // namespace svc::db
