#pragma once
// The user rows of recent token requests, per worker, for [auth]
// user_cache_seconds (at most 1 s; docs/configuration.md). Only the paths
// that read a user by id for an already issued credential use it:
// /auth/refresh-token for a refresh token from before issue 52 (is the
// token's version still the user's, is the user active; a newer token is
// checked in the rotation's own statement) and /auth/user-email. A password
// reset, a sign-out everywhere or a deactivation therefore takes effect on
// those two routes within that bound, as on every other route at once;
// within it, a worker that read the row before the change still answers
// from the old row (tests/handlers/auth/recent_rows_test.cpp shows both). Logins, sign-ups, resets and the SMS
// code routes always read the row.
//
// Not thread-safe: one per worker process. An entry is used only while
// fetched <= now < fetched + ttl, so a clock stepped back never stretches it.
// Cached rows carry no password hash.

#include <optional>
#include <string>
#include <unordered_map>

#include "core/context.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"

namespace svc::auth {

class UserCache {
 public:
  // ttl_seconds <= 0: nothing is kept.
  explicit UserCache(long long ttl_seconds) : ttl_(ttl_seconds) {}
  // The row of user `id` in `table` while fresh at `now`, else nullptr.
  const db::User* get(const std::string& table, long long id, long long now) const;
  // Keeps `user` (its password hash dropped) as read at `now`.
  void put(const std::string& table, const db::User& user, long long now);

 private:
  struct Entry {
    db::User user;
    long long fetched = 0;
  };
  static std::string key(const std::string& table, long long id);
  long long ttl_;
  std::unordered_map<std::string, Entry> entries_;
};

// The user `id` of `table` through ctx.user_cache when there is one (a row
// read at most [auth] user_cache_seconds ago), else read now; nullopt when
// no such row exists (never cached). The password field is empty when the
// row came from the cache: callers must not need it.
std::optional<db::User> find_user_recent(core::Context& ctx, const db::TableName& table, long long id);

// The same for a credential carrying `token_version`: a cached row with an
// older version than the credential is older than the credential itself
// (a password reset, then a new sign-in, within the bound), so the row is
// read now instead of refusing a token issued after the cached read.
std::optional<db::User> find_user_recent(core::Context& ctx, const db::TableName& table, long long id,
                                         long long token_version);

}  // namespace svc::auth
