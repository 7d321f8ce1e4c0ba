#include "crypto/breached_file.hpp"

#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "crypto/encoding.hpp"

namespace svc::crypto {
namespace {

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

// How many interpolation probes before binary search takes over: on uniform
// keys the answer is near after two or three; the bound keeps a skewed file
// (not one the import writes) at O(log n).
constexpr int kInterpolationProbes = 8;

}  // namespace

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

bool sorted_contains(const uint64_t* entries, size_t count, uint64_t key) {
  if (count == 0) return false;
  size_t lo = 0, hi = count - 1;  // the key, if present, lies in [lo, hi]
  for (int probe = 0; probe < kInterpolationProbes && lo < hi; ++probe) {
    const uint64_t a = entries[lo], b = entries[hi];
    if (key < a || key > b) return false;
    if (a == b) return key == a;
    const auto offset = static_cast<unsigned __int128>(key - a) * (hi - lo) / (b - a);
    const size_t mid = lo + static_cast<size_t>(offset);
    if (entries[mid] == key) return true;
    if (entries[mid] < key) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
    if (lo > hi || hi >= count) return false;
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (entries[mid] < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return entries[lo] == key;
}

std::optional<BreachedFile> BreachedFile::open(const std::string& path, std::string& error) {
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
  BreachedFile file(map, static_cast<size_t>(st.st_size));
  const BreachedHeader& h = file.header();
  if (std::memcmp(h.magic, kBreachedMagic, sizeof h.magic) != 0 || h.version != kBreachedVersion ||
      h.header_size != sizeof(BreachedHeader) || h.count != (file.size_ - sizeof(BreachedHeader)) / 8 ||
      (file.size_ - sizeof(BreachedHeader)) % 8 != 0) {
    error = path + ": not a breached-password list of version 1, or cut short";
    return std::nullopt;
  }
  // Lookups jump: read-ahead would only fetch pages no probe asks for.
  ::madvise(map, file.size_, MADV_RANDOM);
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
  return reinterpret_cast<const uint64_t*>(static_cast<const char*>(map_) + sizeof(BreachedHeader));
}

bool BreachedFile::contains(uint64_t key) const { return sorted_contains(entries(), header().count, key); }

}  // namespace svc::crypto
