#pragma once
// The breached-password list as svc keeps it (docs/decisions.md "Issue 41:
// the breached-password list"). Version 2, little-endian:
//
//   [0, 4096)        the header (BreachedHeader, zero-padded to one page)
//   [4096, F)        the entries: one uint64 per listed password, strictly
//                    ascending (the first 8 bytes of the password's SHA-1
//                    read as a big-endian number), zero-padded to a page
//                    boundary, so entry page p holds entries [512p, 512p + 512)
//   [F, end)         the page index: the first entry of every entry page,
//                    ceil(count / 512) uint64 (F = header.index_offset)
//
// Two passwords share an entry only when their SHA-1 agree in 64 bits
// (false-positive rate n / 2^64). A lookup searches the page index (0.016
// bytes per entry, 1.5 MiB for 100 M entries) from an interpolation guess,
// touching one index page (two near a page boundary), then reads exactly
// one entry page. open() reads the header page alone and advises the whole
// mapping MADV_RANDOM (no read-around): a cold open and its first lookup
// read three 4 KiB pages, a cold lookup two (one once its index page is
// cached). Version 1 files (64-byte header, entries, no index)
// still open and are searched whole, until the next import rewrites them.
//
// Thread safety: a BreachedFile is immutable once open; lookups may run
// concurrently. Fork safety: the mapping is shared and read-only, so a
// parent's map stays valid in its children (svc-fcgi maps after fork anyway).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

inline constexpr char kBreachedMagic[8] = {'S', 'V', 'C', 'B', 'R', 'C', 'H', '\n'};
inline constexpr uint32_t kBreachedVersion = 2;
inline constexpr size_t kBreachedPage = 4096;
inline constexpr size_t kEntriesPerPage = kBreachedPage / 8;

// On disk, little-endian, the first 64 bytes of the file.
struct BreachedHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;   // where the entries start: 4096 (version 1: 64)
  uint64_t count;         // entries
  uint64_t min_count;     // lines with a lower COUNT were left out (import --min-count)
  uint64_t source_size;   // bytes of the imported text file
  int64_t source_mtime;   // its mtime (unix seconds)
  int64_t created_at;     // when the import finished (unix seconds)
  uint64_t index_offset;  // where the page index starts (version 1: 0, no index)
};
static_assert(sizeof(BreachedHeader) == 64);

// Where a version-2 file of `count` entries puts its page index, and how
// many index entries and bytes in all it has.
uint64_t breached_index_offset(uint64_t count);
uint64_t breached_index_count(uint64_t count);
uint64_t breached_file_size(uint64_t count);

// The first 8 bytes of SHA-1(password), big-endian: a list entry.
uint64_t breached_key(std::string_view password);

// SHA-1(password) in lower-case hex, as the download spells it (upper-case there).
std::string sha1_hex(std::string_view password);

// The key of a 40-digit hex SHA-1 (either case); nullopt when `hex` does not
// start with 16 hex digits.
std::optional<uint64_t> breached_key_of_hex(std::string_view hex);

// Whether `key` is in entries[0, count) (strictly ascending): one
// interpolation guess, then a galloping search from it, so O(log d) probes
// where d is how far the guess was off (a few on uniform keys), never worse
// than O(log n) on a skewed array.
bool sorted_contains(const uint64_t* entries, size_t count, uint64_t key);

// The index of the last element <= key in a[0, count) (strictly ascending,
// a[0] <= key), searched as sorted_contains searches.
size_t last_at_most(const uint64_t* a, size_t count, uint64_t key);

// How many elements of a[0, count) (strictly ascending) are <= key: a
// galloping search from a[guess] (REQUIRES guess < count), then bisection.
// Reads a[guess] and O(log d) elements within 2d of it, where d is how far
// the answer lies from the guess; neither end of the array unless d reaches it.
size_t count_at_most(const uint64_t* a, size_t count, uint64_t key, size_t guess);

// A list file mapped read-only. Move-only; unmaps on destruction.
class BreachedFile {
 public:
  // Maps `path` and checks the header (magic, version 1 or 2, where the
  // entries and the page index start, the file size its count implies),
  // reading the header page alone. nullopt with `error` set ("missing",
  // "not a breached list", ...) otherwise. A lookup reads within the size
  // checked here whatever the entries hold (an unsorted or damaged file
  // answers wrongly, never out of bounds).
  // `first_key`: the key of the lookup that follows, whose index page is
  // then read at the same time as the header (a cold open and its first
  // lookup wait for two reads, not three).
  static std::optional<BreachedFile> open(const std::string& path, std::string& error,
                                          std::optional<uint64_t> first_key = std::nullopt);

  BreachedFile(BreachedFile&& other) noexcept;
  BreachedFile& operator=(BreachedFile&& other) noexcept;
  BreachedFile(const BreachedFile&) = delete;
  BreachedFile& operator=(const BreachedFile&) = delete;
  ~BreachedFile();

  const BreachedHeader& header() const { return *static_cast<const BreachedHeader*>(map_); }
  bool contains(uint64_t key) const;
  bool contains_password(std::string_view password) const { return contains(breached_key(password)); }

  // The entry page a lookup of `key` reads (version 2), nullopt when the
  // key lies below the first entry (no page is read then).
  std::optional<size_t> page_of(uint64_t key) const;

  // Asks the kernel to read the whole page index in the background
  // (MADV_WILLNEED; it does not wait for the reads), so that every later
  // lookup whose pages are not cached reads one entry page instead of an
  // index page and then an entry page. 1.56 MB for 100 million entries,
  // shared by every worker through the page cache. Nothing for version 1.
  void read_index_ahead() const;

 private:
  BreachedFile(void* map, size_t size) : map_(map), size_(size) {}
  const uint64_t* entries() const;
  const uint64_t* index() const;
  void* map_ = nullptr;
  size_t size_ = 0;
};

}  // namespace svc::crypto
