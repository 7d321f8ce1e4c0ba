#pragma once

#include <string>

#include "core/context.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// The user named by an encrypted, expiring user id (crypto/sealed_id.hpp,
// purpose User, [keys] id_key), read from the first [auth] table: the
// `userId` of /auth/user-email, /auth/user-sms-code and /auth/verify-sms-code.
// Throws http::ApiError with the reply those endpoints share: 500 generic for a
// token that does not open (garbage, another key, a customer id; logged as
// sealed_id_refused with the request id and a reason), 400 "Token
// expired" once its exp has passed at the context's clock, 404 "User not
// found" when no row has the id or the row is inactive (so an inactive
// account gets no e-mail reply and no SMS code, and looks like no account).
// kRecent reads the row through ctx.user_cache (auth/user_cache.hpp: at most
// [auth] user_cache_seconds old, without the password hash): only for
// /auth/user-email, which answers from the row and changes nothing.
enum class UserRead { kNow, kRecent };
db::User sealed_user(const std::string& token, const http::Request& request, core::Context& ctx,
                     UserRead read = UserRead::kNow);

// The auth table sealed_user() reads, and the one SMS codes are kept for.
// REQUIRES: [auth] tables is not empty.
const std::string& sealed_user_table(const core::Context& ctx);

}  // namespace svc::auth
