#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/mfa/bearer.hpp"
#include "auth/mfa/mail.hpp"
#include "auth/session/sessions.hpp"
#include "crypto/password_hasher.hpp"
#include "db/mfa_repo.hpp"
#include "db/throttle_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {
namespace {

// The account password as the proof, counted in the login throttle like a
// login (one Argon2id verify; the route is in the hashing pool).
void require_own_password(const http::Request& request, core::Context& ctx, const SignedInUser& me,
                          const std::string& password) {
  const std::string key = claim_own_attempt(ctx, me);
  auto stored = db::UserRepo(ctx.db, me.table).find_by_id(me.user.id);
  const bool ok = stored && ctx.hasher.verify(stored->password, password).ok;
  if (!ok) {
    audit(ctx, request, "mfa_code_failed", me.table.str(), me.user.id, me.app_id, "wrong password");
    throw http::ApiError::failed(400, "Invalid password");
  }
  db::ThrottleRepo(ctx.db).reset(me.table.str(), key);
}

}  // namespace

http::Response mfa_disable(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto code = fields.optional_string("code", 64);
  auto password = fields.optional_string("password", 1024);
  if (!code && !password && fields.ok()) fields.add("code", "code or password is required");
  fields.throw_if_errors();
  if (!db::MfaRepo(ctx.db).has_confirmed_factor(me.table.str(), me.user.id)) {
    throw http::ApiError::failed(409, "Two-factor authentication is not enabled");
  }
  if (code) {
    require_own_code(request, ctx, me, *code, false);
  } else {
    require_own_password(request, ctx, me, *password);
  }
  // MfaRepo::remove is a transaction of its own: the event follows it.
  if (db::MfaRepo(ctx.db).remove(me.table.str(), me.user.id)) {
    webhooks::enqueue(ctx.db, me.app_id, "user.mfa_disabled", db::user_data(me.table.str(), me.user.id, me.user.email));
  }
  audit(ctx, request, "mfa_disabled", me.table.str(), me.user.id, me.app_id, code ? "code" : "password");
  queue_mfa_mail(ctx, request, me.app_id, me.table, me.user, MfaChange::kDisabled);
  end_sessions(ctx, me.table.str(), me.user.id, "mfa_disabled", me.sid);  // every other session
  http::JsonWriter w;
  w.open().kv("status", "Success").close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth
