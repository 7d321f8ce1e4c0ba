#include "crypto/breached_file.hpp"

#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "crypto/encoding.hpp"

namespace svc::crypto {
namespace {

constexpr uint32_t kVersion1 = 1;
constexpr size_t kVersion1Header = sizeof(BreachedHeader);

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string sha1(std::string_view password) {
  std::string digest(SHA_DIGEST_LENGTH, '\0');
  SHA1(reinterpret_cast<const unsigned char*>(password.data()), password.size(),
       reinterpret_cast<unsigned char*>(digest.data()));
  return digest;
}

uint64_t round_up_to_page(uint64_t bytes) { return (bytes + kBreachedPage - 1) / kBreachedPage * kBreachedPage; }

// Whether the mapped header describes a file of exactly `size` bytes in a
// version this code reads.
bool well_formed(const BreachedHeader& h, size_t size) {
  if (std::memcmp(h.magic, kBreachedMagic, sizeof h.magic) != 0) return false;
  if (h.count > size / 8) return false;  // no overflow below
  if (h.version == kVersion1) {
    return h.header_size == kVersion1Header && h.index_offset == 0 && size == kVersion1Header + h.count * 8;
  }
  return h.version == kBreachedVersion && h.header_size == kBreachedPage &&
         h.index_offset == breached_index_offset(h.count) && size == breached_file_size(h.count);
}

// Where the interpolation guess for `key` lands in an index of `n` entries:
// keys are SHA-1 prefixes, uniform over 64 bits, so key * n / 2^64 needs
// neither end of the index (each a page a cold lookup would read) and lands
// within a few entries of the answer: on its index page, or the next one
// near a page boundary.
size_t index_guess(uint64_t key, size_t n) {
  return static_cast<size_t>(static_cast<unsigned __int128>(key) * n >> 64);
}

// A version-2 file's size alone says how long its page index is (4096
// bytes, then 4104 per index entry: its entry page and itself), so the
// index page a lookup of `key` will read can be asked for before the header
// is read: the disk reads both at once, and a cold open and its first
// lookup wait for two reads, not three. Nothing for another size (the
// header check refuses it or it is version 1).
void prefetch_index_page(char* map, uint64_t size, uint64_t key) {
  const uint64_t n = size > kBreachedPage ? (size - kBreachedPage) / (kBreachedPage + 8) : 0;
  if (n == 0 || size != breached_file_size(n * kEntriesPerPage)) return;
  const uint64_t at = breached_index_offset(n * kEntriesPerPage) + index_guess(key, n) * 8;
  ::madvise(map + at / kBreachedPage * kBreachedPage, kBreachedPage, MADV_WILLNEED);
}

}  // namespace

uint64_t breached_index_offset(uint64_t count) { return kBreachedPage + round_up_to_page(count * 8); }
uint64_t breached_index_count(uint64_t count) { return (count + kEntriesPerPage - 1) / kEntriesPerPage; }
uint64_t breached_file_size(uint64_t count) { return breached_index_offset(count) + breached_index_count(count) * 8; }

uint64_t breached_key(std::string_view password) {
  const std::string digest = sha1(password);
  uint64_t key = 0;
  for (int i = 0; i < 8; ++i) key = key << 8 | static_cast<unsigned char>(digest[static_cast<size_t>(i)]);
  return key;
}

std::string sha1_hex(std::string_view password) { return hex_encode(sha1(password)); }

std::optional<uint64_t> breached_key_of_hex(std::string_view hex) {
  if (hex.size() < 16) return std::nullopt;
  uint64_t key = 0;
  for (size_t i = 0; i < 16; ++i) {
    const int d = hex_digit(hex[i]);
    if (d < 0) return std::nullopt;
    key = key << 4 | static_cast<uint64_t>(d);
  }
  return key;
}

size_t count_at_most(const uint64_t* a, size_t count, uint64_t key, size_t guess) {
  // Invariant: a[i] <= key for every i < lo, a[i] > key for every i >= hi.
  size_t lo = 0, hi = count;
  if (a[guess] <= key) {  // gallop up: guess + 1, + 2, + 4, ...
    lo = guess + 1;
    for (size_t step = 1; lo < hi; step *= 2) {
      const size_t probe = std::min(hi - 1, lo - 1 + step);
      if (a[probe] > key) {
        hi = probe;
        break;
      }
      lo = probe + 1;
    }
  } else {  // gallop down
    hi = guess;
    for (size_t step = 1; lo < hi; step *= 2) {
      const size_t probe = hi > step ? hi - step : 0;
      if (a[probe] <= key) {
        lo = probe + 1;
        break;
      }
      hi = probe;
    }
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (a[mid] <= key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t last_at_most(const uint64_t* a, size_t count, uint64_t key) {
  const uint64_t first = a[0], last = a[count - 1];
  if (key >= last) return count - 1;
  // first <= key < last: an interpolation guess between the two ends.
  const auto guess = static_cast<size_t>(static_cast<unsigned __int128>(key - first) * (count - 1) / (last - first));
  return count_at_most(a, count, key, guess) - 1;
}

bool sorted_contains(const uint64_t* entries, size_t count, uint64_t key) {
  if (count == 0 || key < entries[0] || key > entries[count - 1]) return false;
  return entries[last_at_most(entries, count, key)] == key;
}

std::optional<BreachedFile> BreachedFile::open(const std::string& path, std::string& error,
                                               std::optional<uint64_t> first_key) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  void* map = MAP_FAILED;
  const bool sized = ::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= sizeof(BreachedHeader);
  if (sized) map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (map == MAP_FAILED) {
    error = path + ": " + (sized ? std::strerror(errno) : "not a breached-password list (too short)");
    return std::nullopt;
  }
  // Every page of the file is read where a lookup lands, one at a time:
  // read-around (the disk's read_ahead_kb, 8 MiB on some virtual disks)
  // would fetch pages no lookup asks for and make the first lookup wait for
  // them. Advised before the header is read, so its fault reads one page.
  ::madvise(map, static_cast<size_t>(st.st_size), MADV_RANDOM);
  if (first_key) prefetch_index_page(static_cast<char*>(map), static_cast<uint64_t>(st.st_size), *first_key);
  BreachedFile file(map, static_cast<size_t>(st.st_size));
  if (!well_formed(file.header(), file.size_)) {
    error = path + ": not a breached-password list of version 1 or 2, or cut short";
    return std::nullopt;
  }
  return file;
}

BreachedFile::BreachedFile(BreachedFile&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)), size_(std::exchange(other.size_, 0)) {}

BreachedFile& BreachedFile::operator=(BreachedFile&& other) noexcept {
  if (this != &other) {
    if (map_) ::munmap(map_, size_);
    map_ = std::exchange(other.map_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

BreachedFile::~BreachedFile() {
  if (map_) ::munmap(map_, size_);
}

const uint64_t* BreachedFile::entries() const {
  return reinterpret_cast<const uint64_t*>(static_cast<const char*>(map_) + header().header_size);
}

const uint64_t* BreachedFile::index() const {
  return reinterpret_cast<const uint64_t*>(static_cast<const char*>(map_) + header().index_offset);
}

std::optional<size_t> BreachedFile::page_of(uint64_t key) const {
  const BreachedHeader& h = header();
  if (h.version == kVersion1 || h.count == 0) return std::nullopt;
  const size_t n = breached_index_count(h.count);
  const size_t at_most = count_at_most(index(), n, key, index_guess(key, n));
  if (at_most == 0) return std::nullopt;
  return at_most - 1;
}

void BreachedFile::read_index_ahead() const {
  const BreachedHeader& h = header();
  if (h.version == kVersion1 || h.count == 0) return;
  const uint64_t first = h.index_offset / kBreachedPage * kBreachedPage;
  ::madvise(static_cast<char*>(map_) + first, size_ - first, MADV_WILLNEED);
}

bool BreachedFile::contains(uint64_t key) const {
  const BreachedHeader& h = header();
  if (h.version == kVersion1) return sorted_contains(entries(), h.count, key);
  const auto page = page_of(key);
  if (!page) return false;
  const size_t first = *page * kEntriesPerPage;
  return sorted_contains(entries() + first, std::min<size_t>(kEntriesPerPage, h.count - first), key);
}

}  // namespace svc::crypto
