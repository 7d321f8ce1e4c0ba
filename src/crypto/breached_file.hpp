#pragma once
// The breached-password list as svc keeps it (docs/decisions.md "Issue 41:
// the breached-password list"): a 64-byte header, then one little-endian
// uint64 per listed password, strictly ascending: the first 8 bytes of the
// password's SHA-1 read as a big-endian number. Two passwords share an entry
// only when their SHA-1 agree in 64 bits (false-positive rate n / 2^64).
//
// BreachedFile maps such a file read-only; a lookup touches a handful of
// pages (interpolation search: SHA-1 prefixes are uniform). Thread safety: a
// BreachedFile is immutable once open; lookups may run concurrently. Fork
// safety: the mapping is shared and read-only, so a parent's map stays valid
// in its children (svc-fcgi maps after fork anyway).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

inline constexpr char kBreachedMagic[8] = {'S', 'V', 'C', 'B', 'R', 'C', 'H', '\n'};
inline constexpr uint32_t kBreachedVersion = 1;

// On disk, little-endian, 64 bytes.
struct BreachedHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;  // 64: entries start here
  uint64_t count;        // entries after the header
  uint64_t min_count;    // lines with a lower COUNT were left out (import --min-count)
  uint64_t source_size;  // bytes of the imported text file
  int64_t source_mtime;  // its mtime (unix seconds)
  int64_t created_at;    // when the import finished (unix seconds)
  uint64_t reserved;
};
static_assert(sizeof(BreachedHeader) == 64);

// The first 8 bytes of SHA-1(password), big-endian: a list entry.
uint64_t breached_key(std::string_view password);

// SHA-1(password) in lower-case hex, as the download spells it (upper-case there).
std::string sha1_hex(std::string_view password);

// The key of a 40-digit hex SHA-1 (either case); nullopt when `hex` does not
// start with 16 hex digits.
std::optional<uint64_t> breached_key_of_hex(std::string_view hex);

// Whether `key` is in entries[0, count) (strictly ascending). Interpolation
// search for a few probes, then binary search: O(log log n) probes on
// uniform keys, never worse than O(log n).
bool sorted_contains(const uint64_t* entries, size_t count, uint64_t key);

// A list file mapped read-only. Move-only; unmaps on destruction.
class BreachedFile {
 public:
  // Maps `path` and checks the header (magic, version, size = header +
  // count * 8). nullopt with `error` set ("missing", "not a breached list",
  // ...) otherwise.
  static std::optional<BreachedFile> open(const std::string& path, std::string& error);

  BreachedFile(BreachedFile&& other) noexcept;
  BreachedFile& operator=(BreachedFile&& other) noexcept;
  BreachedFile(const BreachedFile&) = delete;
  BreachedFile& operator=(const BreachedFile&) = delete;
  ~BreachedFile();

  const BreachedHeader& header() const { return *static_cast<const BreachedHeader*>(map_); }
  bool contains(uint64_t key) const;
  bool contains_password(std::string_view password) const { return contains(breached_key(password)); }

 private:
  BreachedFile(void* map, size_t size) : map_(map), size_(size) {}
  const uint64_t* entries() const;
  void* map_ = nullptr;
  size_t size_ = 0;
};

}  // namespace svc::crypto
