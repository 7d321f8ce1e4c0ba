#include "auth/user_cache.hpp"

#include <limits>

#include "core/clock.hpp"

namespace svc::auth {
namespace {

// Bounds the memory of a worker: rows live a second, so this many is far
// above what one worker reads in that time; when full, expired rows go
// first, then everything.
constexpr std::size_t kMaxEntries = 4096;

}  // namespace

std::string UserCache::key(const std::string& table, long long id) { return table + '\n' + std::to_string(id); }

const db::User* UserCache::get(const std::string& table, long long id, long long now) const {
  if (ttl_ <= 0) return nullptr;
  auto it = entries_.find(key(table, id));
  if (it == entries_.end()) return nullptr;
  const long long fetched = it->second.fetched;
  return fetched <= now && now < fetched + ttl_ ? &it->second.user : nullptr;
}

void UserCache::put(const std::string& table, const db::User& user, long long now) {
  if (ttl_ <= 0) return;
  if (entries_.size() >= kMaxEntries) {
    std::erase_if(entries_, [&](const auto& e) { return !(e.second.fetched <= now && now < e.second.fetched + ttl_); });
    if (entries_.size() >= kMaxEntries) entries_.clear();
  }
  Entry& e = entries_[key(table, user.id)];
  e.user = user;
  e.user.password.clear();
  e.fetched = now;
}

std::optional<db::User> find_user_recent(core::Context& ctx, const db::TableName& table, long long id) {
  return find_user_recent(ctx, table, id, std::numeric_limits<long long>::min());
}

std::optional<db::User> find_user_recent(core::Context& ctx, const db::TableName& table, long long id,
                                         long long token_version) {
  const long long now = ctx.clock.now();
  if (ctx.user_cache) {
    const db::User* cached = ctx.user_cache->get(table.str(), id, now);
    if (cached && cached->token_version >= token_version) return *cached;
  }
  auto user = db::UserRepo(ctx.db, table).find_by_id(id);
  if (user && ctx.user_cache) ctx.user_cache->put(table.str(), *user, now);
  return user;
}

}  // namespace svc::auth
