#pragma once
// The folder links of recent getFolderLimits requests, per worker, for
// [auth] user_cache_seconds (at most 1 s, the bound already accepted for
// user rows; docs/configuration.md). A link added or removed in svc_related
// shows on getFolderLimits within that bound; within it, a worker that read
// the links before the change still answers from the old list
// (tests/handlers/auth/recent_rows_test.cpp). Only the rows are kept: who may
// read them (bearer token or site key) is checked on every request, and the
// key holds the site, both tables and the user, so no answer crosses a site.
//
// Not thread-safe: one per worker process. An entry is used only while
// fetched <= now < fetched + ttl, so a clock stepped back never stretches it.

#include <string>
#include <unordered_map>
#include <vector>

#include "core/context.hpp"
#include "db/table_name.hpp"

namespace svc::auth {

class FolderCache {
 public:
  // ttl_seconds <= 0: nothing is kept.
  explicit FolderCache(long long ttl_seconds) : ttl_(ttl_seconds) {}
  // The folder ids of `key` while fresh at `now`, else nullptr.
  const std::vector<long long>* get(const std::string& key, long long now) const;
  // Keeps `ids` under `key` as read at `now`.
  void put(const std::string& key, const std::vector<long long>& ids, long long now);

 private:
  struct Entry {
    std::vector<long long> ids;
    long long fetched = 0;
  };
  long long ttl_;
  std::unordered_map<std::string, Entry> entries_;
};

// The folders of `folders` that user `user_id` of `users` is linked to in
// site `site_id`, in link order (db::FolderRepo::linked_folders), through
// ctx.folder_cache when there is one, else read now.
std::vector<long long> linked_folders_recent(core::Context& ctx, const db::TableName& folders,
                                             const db::TableName& users, long long user_id, long long site_id);

}  // namespace svc::auth
