#pragma once

#include <optional>
#include <unordered_map>

namespace svc::core {

// Rows a worker reuses for a few seconds (sites, OAuth clients): each entry
// is fresh until `ttl_seconds` after it was put; at most `max_entries`, then
// it starts over (unknown keys are never put, so the rows are few). Not
// thread-safe: one per worker process.
template <class Key, class Value>
class TtlCache {
 public:
  explicit TtlCache(long long ttl_seconds, size_t max_entries = 1024) : ttl_(ttl_seconds), max_(max_entries) {}

  // The cached value while it is fresh at `now`, else nullptr.
  const Value* get(const Key& key, long long now) const {
    auto it = entries_.find(key);
    return it != entries_.end() && it->second.expires > now ? &it->second.value : nullptr;
  }

  void put(const Key& key, const Value& value, long long now) {
    if (ttl_ <= 0) return;
    if (entries_.size() >= max_) entries_.clear();
    entries_[key] = Entry{value, now + ttl_};
  }

 private:
  struct Entry {
    Value value;
    long long expires = 0;
  };
  long long ttl_;
  size_t max_;
  std::unordered_map<Key, Entry> entries_;
};

// The value of `key` from `cache` (null: no cache) while it is fresh at
// `now`, else what read() returns (a std::optional<Value>), put into the
// cache when there is one.
template <class Key, class Value, class Read>
std::optional<Value> read_through(TtlCache<Key, Value>* cache, const Key& key, long long now, Read&& read) {
  if (cache) {
    if (const Value* cached = cache->get(key, now)) return *cached;
  }
  std::optional<Value> value = read();
  if (value && cache) cache->put(key, *value, now);
  return value;
}

}  // namespace svc::core
