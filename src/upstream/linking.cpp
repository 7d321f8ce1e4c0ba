#include "upstream/linking.hpp"

#include "auth/auth_common.hpp"
#include "core/clock.hpp"
#include "crypto/encoding.hpp"
#include "db/transaction.hpp"
#include "upstream/providers.hpp"
#include "webhooks/events.hpp"

namespace svc::upstream {
namespace {

Resolved refused(std::string message) { return {Resolution::kRefused, "", {}, std::move(message)}; }

// A new user of the site's pool with the upstream address, verified, and
// no password (db::UserRepo: an empty hash never verifies); the identity
// linked in the same transaction. nullopt when the address was taken meanwhile.
std::optional<db::User> create_user(core::Context& ctx, const http::Request& http, const db::Site& site,
                                    const db::UpstreamProvider& provider, const UpstreamIdentity& identity,
                                    const db::TableName& table) {
  db::NewUser fresh;
  fresh.email = identity.email;
  fresh.first_name = identity.given_name.substr(0, 100);
  fresh.last_name = identity.family_name.substr(0, 100);
  const long long now = ctx.clock.now();
  auto id = db::with_transaction_retry(ctx.db, [&]() -> std::optional<long long> {
    db::Transaction tx(ctx.db);
    db::UserRepo users(ctx.db, table, site.user_pool);
    auto inserted = users.insert(fresh);
    if (!inserted) return std::nullopt;
    users.prove_address(*inserted, now);
    db::User user;
    user.id = *inserted;
    user.email = fresh.email;
    user.first_name = fresh.first_name;
    user.last_name = fresh.last_name;
    user.role = fresh.role;
    auth::record_user_version(ctx, table, user, "insert");
    webhooks::enqueue(ctx.db, site.id, "user.created", db::user_data(table.str(), *inserted, fresh.email));
    if (!link_identity(ctx, http, site.id, site.user_pool, provider, identity.subject, identity.email, table.str(),
                       *inserted)) {
      return std::nullopt;  // rolls back
    }
    tx.commit();
    return inserted;
  });
  if (!id) return std::nullopt;
  auth::audit(ctx, http, "sign_up", table.str(), *id, site.id, "upstream " + provider.name);
  return db::UserRepo(ctx.db, table).find_by_id(*id);
}

}  // namespace

bool link_identity(core::Context& ctx, const http::Request& http, long long site_id, long long pool_id,
                   const db::UpstreamProvider& provider, const std::string& subject, const std::string& email,
                   const std::string& table, long long user_id) {
  db::UserIdentity row;
  row.pool_id = pool_id;
  row.issuer = identity_issuer(provider);
  row.subject = subject;
  row.table = table;
  row.user_id = user_id;
  row.provider = provider.name;
  row.email = email;
  row.created_at = ctx.clock.now();
  db::WebhookData data = db::user_data(table, user_id, email);
  data.reason = provider.name;
  const bool linked = webhooks::change_with_event(ctx.db, site_id, "user.identity_linked", data,
                                                  [&] { return db::UpstreamRepo(ctx.db).link(row); });
  if (linked) auth::audit(ctx, http, "identity_linked", table, user_id, site_id, provider.name);
  return linked;
}

Resolved resolve(core::Context& ctx, const http::Request& http, const db::Site& site,
                 const db::UpstreamProvider& provider, const UpstreamIdentity& identity, const db::TableName& table) {
  db::UpstreamRepo repo(ctx.db);
  if (auto known = repo.identity(site.user_pool, identity_issuer(provider), identity.subject)) {
    auto known_table = db::allowlisted(known->table, ctx.config.auth.tables);
    auto user = known_table ? db::UserRepo(ctx.db, *known_table).find_by_id(known->user_id) : std::nullopt;
    if (!user || !user->active) return refused("This account is disabled.");
    repo.touch(known->id, ctx.clock.now());
    return {Resolution::kSignIn, known->table, *user, ""};
  }
  if (identity.email.empty() || identity.email.size() > 254) {
    return refused("The provider did not give an e-mail address, so no account can be found or made.");
  }
  const bool upstream_verified = identity.email_verified || provider.trust_email;
  if (auto local = db::UserRepo(ctx.db, table, site.user_pool).find_by_email(identity.email)) {
    if (!local->active) return refused("This account is disabled.");
    if (upstream_verified && local->email_verified) {
      if (!link_identity(ctx, http, site.id, site.user_pool, provider, identity.subject, identity.email, table.str(),
                         local->id)) {
        return refused("This account at the provider is linked to another user already.");
      }
      return {Resolution::kSignIn, table.str(), *local, ""};
    }
    return {Resolution::kLinkFirst, table.str(), *local, ""};
  }
  if (!db::UpstreamRepo(ctx.db).signup_open(site.id)) {
    return refused("No account uses this address, and this site does not let new users sign up.");
  }
  if (!upstream_verified) {
    return refused("The provider has not verified your e-mail address. Verify it there first, then try again.");
  }
  auto user = create_user(ctx, http, site, provider, identity, table);
  if (!user) return refused("This address or account was registered at the same moment. Try again.");
  return {Resolution::kSignIn, table.str(), *user, ""};
}

std::string pending_link_key(const std::string& request_id) {
  return crypto::hex_encode(crypto::sha256("link:" + request_id));
}

void finish_pending_link(core::Context& ctx, const http::Request& http, const std::string& request_id,
                         const std::string& table, long long user_id) {
  db::UpstreamRepo repo(ctx.db);
  auto pending = repo.take_pending(pending_link_key(request_id), "link", ctx.clock.now());
  if (!pending || pending->table != table || pending->user_id != user_id) return;
  auto provider = repo.provider_by_id(pending->provider_id);
  auto site = db::SiteRepo(ctx.db).find(pending->site_id);
  if (!provider || !site) return;
  link_identity(ctx, http, site->id, site->user_pool, *provider, pending->subject, pending->email, table, user_id);
}

}  // namespace svc::upstream
