#include "auth/sign_up_service.hpp"

#include "auth/auth_common.hpp"
#include "crypto/password_hasher.hpp"
#include "db/user_repo.hpp"

namespace svc::auth {

std::optional<Session> register_user(const NewAccount& account, const http::Request& request, core::Context& ctx) {
  db::NewUser fresh;
  fresh.email = account.email;
  fresh.password_hash = ctx.hasher.hash(account.password);
  fresh.first_name = account.first_name;
  fresh.last_name = account.last_name;

  const std::string& table = account.table.str();
  db::Transaction tx(ctx.db);
  auto id = db::UserRepo(ctx.db, account.table).insert(fresh);
  if (!id) return std::nullopt;  // the transaction rolls back (nothing was written)
  Session session;
  session.user.id = *id;
  session.user.email = fresh.email;
  session.user.first_name = fresh.first_name;
  session.user.last_name = fresh.last_name;
  session.user.role = fresh.role;
  record_user_version(ctx, account.table, session.user, "insert");
  tx.commit();
  audit(ctx, request, "sign_up", table, *id, account.app_id);

  session.tokens = issue_tokens(session.user, table, account.app_id, ctx);
  return session;
}

}  // namespace svc::auth
