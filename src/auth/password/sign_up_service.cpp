#include "auth/password/sign_up_service.hpp"

#include "auth/app_id.hpp"
#include "auth/auth_common.hpp"
#include "auth/email/verification.hpp"
#include "crypto/password_hasher.hpp"
#include "db/site_repo.hpp"
#include "db/transaction.hpp"
#include "db/user_repo.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {

std::optional<Session> register_user(const NewAccount& account, const http::Request& request, core::Context& ctx) {
  db::NewUser fresh;
  fresh.email = account.email;
  fresh.password_hash = ctx.hasher.hash(account.password);
  fresh.first_name = account.first_name;
  fresh.last_name = account.last_name;

  const std::string& table = account.table.str();
  Session session;
  session.user.email = fresh.email;
  session.user.first_name = fresh.first_name;
  session.user.last_name = fresh.last_name;
  session.user.role = fresh.role;
  // The site asks for verified addresses (site set --verify-email).
  const auto site = account.app_id != 0 ? db::SiteRepo(ctx.db).find(account.app_id) : std::nullopt;
  // Run again whole if Galera's certification refuses the commit (the hash
  // is made once, before).
  auto id = db::with_transaction_retry(ctx.db, [&]() -> std::optional<long long> {
    db::Transaction tx(ctx.db);
    auto inserted = db::UserRepo(ctx.db, account.table, user_pool(ctx, account.app_id)).insert(fresh);
    if (!inserted) return std::nullopt;  // the transaction rolls back (nothing was written)
    session.user.id = *inserted;
    if (!account.locale.empty()) db::UserRepo(ctx.db, account.table).set_locale(*inserted, account.locale);
    record_user_version(ctx, account.table, session.user, "insert");
    webhooks::enqueue(ctx.db, account.app_id, "user.created", db::user_data(table, *inserted, fresh.email));
    // With the account or not at all: a verification mail is never lost
    // to a crash between the two (issue 26).
    if (site && site->verify_email) queue_verification_mail(ctx, request, *site, account.table, session.user);
    tx.commit();
    return inserted;
  });
  if (!id) return std::nullopt;
  audit(ctx, request, "sign_up", table, *id, account.app_id);

  session.tokens = issue_tokens(request, session.user, table, account.app_id, ctx);
  return session;
}

}  // namespace svc::auth
