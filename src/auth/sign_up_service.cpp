#include "auth/sign_up_service.hpp"

#include "auth/auth_common.hpp"
#include "crypto/password_hasher.hpp"
#include "db/user_repo.hpp"
#include "db/version_repo.hpp"
#include "http/json.hpp"

namespace svc::auth {
namespace {

// The svc_versions copy of a new row: its columns without the password hash.
std::string snapshot(long long id, const db::NewUser& fresh) {
  http::JsonWriter w;
  w.open()
      .kv("id", id)
      .kv("user_email", fresh.email)
      .kv("first_name", fresh.first_name)
      .kv("last_name", fresh.last_name)
      .kv("primary_role", fresh.role)
      .close();
  return w.str();
}

}  // namespace

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
  db::VersionRepo(ctx.db).record(table, *id, "insert", snapshot(*id, fresh));
  tx.commit();
  audit(ctx, request, "sign_up", table, *id, account.app_id);

  Session session;
  session.user.id = *id;
  session.user.email = fresh.email;
  session.user.first_name = fresh.first_name;
  session.user.last_name = fresh.last_name;
  session.user.role = fresh.role;
  session.tokens = issue_tokens(session.user, table, account.app_id, ctx);
  return session;
}

}  // namespace svc::auth
