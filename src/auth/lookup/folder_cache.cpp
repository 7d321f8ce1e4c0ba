#include "auth/lookup/folder_cache.hpp"

#include "core/clock.hpp"
#include "db/folder_repo.hpp"

namespace svc::auth {
namespace {

// Bounds the memory of a worker, as for user rows (auth/user_cache.cpp):
// when full, expired entries go first, then everything.
constexpr std::size_t kMaxEntries = 4096;

}  // namespace

const std::vector<long long>* FolderCache::get(const std::string& key, long long now) const {
  if (ttl_ <= 0) return nullptr;
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  const long long fetched = it->second.fetched;
  return fetched <= now && now < fetched + ttl_ ? &it->second.ids : nullptr;
}

void FolderCache::put(const std::string& key, const std::vector<long long>& ids, long long now) {
  if (ttl_ <= 0) return;
  if (entries_.size() >= kMaxEntries) {
    std::erase_if(entries_, [&](const auto& e) { return !(e.second.fetched <= now && now < e.second.fetched + ttl_); });
    if (entries_.size() >= kMaxEntries) entries_.clear();
  }
  entries_[key] = Entry{ids, now};
}

std::vector<long long> linked_folders_recent(core::Context& ctx, const db::TableName& folders,
                                             const db::TableName& users, long long user_id, long long site_id) {
  const long long now = ctx.clock.now();
  const std::string key =
      std::to_string(site_id) + '\n' + folders.str() + '\n' + users.str() + '\n' + std::to_string(user_id);
  if (ctx.folder_cache) {
    if (const std::vector<long long>* cached = ctx.folder_cache->get(key, now)) return *cached;
  }
  std::vector<long long> ids = db::FolderRepo(ctx.db, folders).linked_folders(users, user_id, site_id);
  if (ctx.folder_cache) ctx.folder_cache->put(key, ids, now);
  return ids;
}

}  // namespace svc::auth
