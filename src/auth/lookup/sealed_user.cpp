#include "auth/lookup/sealed_user.hpp"

#include "auth/user_cache.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "crypto/sealed_id.hpp"
#include "db/table_name.hpp"
#include "http/api_error.hpp"

namespace svc::auth {

const std::string& sealed_user_table(const core::Context& ctx) { return ctx.config.auth.tables.front(); }

db::User sealed_user(const std::string& token, const http::Request& request, core::Context& ctx, UserRead read) {
  auto opened = crypto::open_id(token, crypto::IdPurpose::User, ctx.config.keys.id_key);
  if (!opened) {
    // The spec's 500 tells the caller nothing: the log says why (never the token).
    core::LogLine("warn", "sealed_id_refused")
        .str("request_id", request.request_id)
        .str("path", request.path)
        .str("reason", crypto::has_sealed_id_shape(token)
                           ? "userId does not open with [keys] id_key as a user id (sealed with another key, a "
                             "customer id, altered, or not the {uid,exp} JSON)"
                           : "userId is not an id sealed with [keys] id_key: not base64url, or too short")
        .emit();
    throw http::ApiError::failed(500, http::kGenericError);
  }
  if (opened->exp <= ctx.clock.now()) throw http::ApiError::failed(400, "Token expired");
  auto table = db::allowlisted(sealed_user_table(ctx), ctx.config.auth.tables);
  auto user = read == UserRead::kRecent ? find_user_recent(ctx, *table, opened->id)
                                        : db::UserRepo(ctx.db, *table).find_by_id(opened->id);
  // An inactive account answers like a missing one (and so is never sent an SMS code).
  if (!user || !user->active) throw http::ApiError::failed(404, "User not found");
  return *user;
}

}  // namespace svc::auth
