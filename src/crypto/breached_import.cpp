#include "crypto/breached_import.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>
#include <tuple>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The entries are written in the host's order and read back by mapping:
// little-endian, as the format says.
static_assert(std::endian::native == std::endian::little);

namespace svc::crypto {
namespace {

constexpr size_t kChunk = 8 << 20;  // parsed and reported on at a time
constexpr size_t kMapAhead = 4;     // chunks of a mapped input read in ahead of the parsing
constexpr size_t kHashDigits = 40;
constexpr size_t kMaxLine = 128;  // longer is not a line of the download
// How far ahead of the line being parsed the parser asks for the text
// (__builtin_prefetch): where a line starts is known only once the line
// before is read, so without it every cache miss stalls the parsing whole
// (40 against 17 ns a line with the text in the page cache, 0.35 against
// 0.17 s of CPU for the benchmark's 10 M lines from a cold cache).
constexpr size_t kPrefetchBytes = 1024;

[[noreturn]] void io_error(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

[[noreturn]] void refuse(uint64_t line, const std::string& what) {
  throw BreachedImportError("line " + std::to_string(line) + ": " + what);
}

void write_all(int fd, const void* data, size_t size, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error("write " + path);
    p += n;
    size -= static_cast<size_t>(n);
  }
}

#if defined(__SSE2__)
// Which of the 16 bytes of x are hex digits (either case), a bit each; in
// `digit` those that are '0'-'9'.
[[gnu::always_inline]] inline unsigned hex_bytes(__m128i x, __m128i& digit) {
  const __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));  // A-F to a-f; digits keep their value
  digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
  const __m128i letter =
      _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(digit, letter)));
}

[[gnu::always_inline]] inline __m128i load16(const char* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// 16 hex digits (either case) at p as a number, 16 bytes at once; false
// when one is not a hex digit.
[[gnu::always_inline]] inline bool parse_hex16(const char* p, uint64_t& out) {
  const __m128i x = load16(p);
  __m128i digit;
  if (hex_bytes(x, digit) != 0xFFFF) return false;
  const __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
  const __m128i value = _mm_or_si128(_mm_and_si128(digit, _mm_sub_epi8(x, _mm_set1_epi8('0'))),
                                     _mm_andnot_si128(digit, _mm_sub_epi8(lower, _mm_set1_epi8('a' - 10))));
  // Each 16-bit lane holds two digits, the first in its low byte: one byte
  // first << 4 | second, then the eight bytes in the text's order.
  const __m128i pairs =
      _mm_or_si128(_mm_and_si128(_mm_slli_epi16(value, 4), _mm_set1_epi16(0x00F0)), _mm_srli_epi16(value, 8));
  const __m128i bytes = _mm_packus_epi16(pairs, _mm_setzero_si128());
  out = __builtin_bswap64(static_cast<uint64_t>(_mm_cvtsi128_si64(bytes)));
  return true;
}

// Whether the 24 bytes at p are hex digits (either case).
[[gnu::always_inline]] inline bool hex24(const char* p) {
  __m128i digit;
  return (hex_bytes(load16(p), digit) & hex_bytes(load16(p + 8), digit)) == 0xFFFF;
}
#else
[[gnu::always_inline]] inline bool parse_hex16(const char* p, uint64_t& out) {
  auto key = breached_key_of_hex(std::string_view(p, 16));
  out = key.value_or(0);
  return key.has_value();
}

inline bool hex24(const char* p) {
  return breached_key_of_hex(std::string_view(p, 16)) && breached_key_of_hex(std::string_view(p + 8, 16));
}
#endif

// 8 hex digits at p (checked) in lower case, as a big-endian number: such
// numbers compare as the digits do ('0'-'9' sort below 'a'-'f').
[[gnu::always_inline]] inline uint64_t lowered8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v | 0x2020202020202020ULL);
}

// A line's SHA-1 in the order of the hash, whatever the case of its hex
// digits: the key (digits 0-15, parsed: what the list keeps), then digits
// 16-39 as lowered8() numbers (only ever compared: no need to parse them).
struct Hash {
  uint64_t key = 0;
  uint64_t rest[3] = {};
};

std::string hash_hex(const Hash& h) {
  char out[kHashDigits + 1];
  std::snprintf(out, sizeof out, "%016llX", static_cast<unsigned long long>(h.key));
  for (size_t i = 0; i < 3; ++i) {
    const uint64_t text = __builtin_bswap64(h.rest[i]);
    std::memcpy(out + 16 + 8 * i, &text, 8);
  }
  for (size_t i = 16; i < kHashDigits; ++i) {
    out[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[i])));
  }
  out[kHashDigits] = 0;
  return out;
}

// The end of line after a count that starts at p, if it is within 16 bytes
// (a count of up to 14 digits, then "\r\n"): the fixed-width fast path,
// with no loop over the bytes. nullptr when not, or when a byte before it
// (but one '\r') is no digit: the checked path then says what is wrong.
// Reads p[0, 16).
#if defined(__SSE2__)
[[gnu::always_inline]] inline const char* short_count_end(const char* p) {
  const __m128i x = load16(p);
  const unsigned eol = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))));
  if (eol == 0) return nullptr;
  const unsigned digits = static_cast<unsigned>(_mm_movemask_epi8(
      _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)))));
  const unsigned before = (eol & -eol) - 1;  // the bytes before the end of line
  const unsigned cr = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r'))));
  const unsigned count = (cr & before & (before + 1) >> 1) ? before >> 1 : before;  // a '\r' just before
  if (count == 0 || (digits & count) != count) return nullptr;
  return p + std::countr_zero(eol);
}
#else
inline const char* short_count_end(const char*) { return nullptr; }
#endif

// 1 to 8 decimal digits at p (checked by the caller) as a number, without
// a loop: SWAR, as simdjson's parse_eight_digits. Reads p[0, 8).
[[gnu::always_inline]] inline uint64_t decimal8(const char* p, size_t digits) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  v <<= 8 * (8 - digits);  // the digits last; the zero bytes before them count as '0'
  v = (v & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
  v = (v & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
  return (v & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
}

// Reads lines, checks them and their order, and adds the keys of those
// with COUNT >= min_count to a BreachedWriter (two hashes that agree in
// their first 64 bits make one entry). Throws BreachedImportError.
class LineReader {
 public:
  LineReader(BreachedWriter& out, uint64_t min_count) : out_(out), min_count_(min_count) {}

  // Takes every whole line of [p, end); returns where the first unfinished
  // one starts (end when none).
  const char* take(const char* p, const char* end) {
    // A line is at least "HASH:N\n": its end is sought after that (a line cut
    // shorter fails the hash check, at its own line number). The fast path
    // finds it within 16 bytes; the checked one anywhere.
    while (end - p > static_cast<ptrdiff_t>(kHashDigits + 1)) {
      const char* count = p + kHashDigits + 1;
      __builtin_prefetch(p + kPrefetchBytes);
      const char* eol = end - count >= 16 ? short_count_end(count) : nullptr;
      if (eol && p[kHashDigits] == ':') {
        ++lines_;
        const size_t digits = static_cast<size_t>(eol - count) - (eol[-1] == '\r' ? 1 : 0);
        add(p, digits <= 8 ? decimal8(count, digits) : parse_count(count, digits));
      } else {
        eol = static_cast<const char*>(std::memchr(count, '\n', static_cast<size_t>(end - count)));
        if (!eol) break;
        ++lines_;
        const size_t size = static_cast<size_t>(eol - p) - (eol[-1] == '\r' ? 1 : 0);
        if (size < kHashDigits + 2 || p[kHashDigits] != ':') {
          refuse(lines_, "not a SHA1:COUNT line (truncated or malformed)");
        }
        add(p, parse_count(count, size - kHashDigits - 1));
      }
      p = eol + 1;
    }
    return p;
  }

  uint64_t lines() const { return lines_; }

 private:
  uint64_t parse_count(const char* p, size_t digits) const {
    uint64_t count = 0;
    for (size_t i = 0; i < digits; ++i) {
      const unsigned digit = static_cast<unsigned char>(p[i]) - static_cast<unsigned>('0');
      if (digit > 9 || count > (~0ULL - 9) / 10) refuse(lines_, "the count is not a decimal number");
      count = count * 10 + digit;
    }
    return count;
  }

  // The line at p (its hash, then ':' and `count`): the hash must be above
  // the one before (all 40 digits compared: the download has no repeated hash).
  void add(const char* p, uint64_t count) {
    uint64_t key;
    if (!parse_hex16(p, key) || !hex24(p + 16)) {
      refuse(lines_, "the hash is not 40 hex digits (or the line is cut short)");
    }
    const uint64_t rest[3] = {lowered8(p + 16), lowered8(p + 24), lowered8(p + 32)};
    // Keys rarely repeat: the rest of the hash is compared only when they do.
    // Kept member by member: a copy of a whole Hash went through the stack
    // and stalled on store forwarding (16 % more CPU time for the import).
    const auto& before = previous_.rest;
    if (lines_ > 1 && key <= previous_.key &&
        (key < previous_.key || std::tie(rest[0], rest[1], rest[2]) <= std::tie(before[0], before[1], before[2]))) {
      refuse_order();
    }
    previous_.key = key;
    for (size_t i = 0; i < 3; ++i) previous_.rest[i] = rest[i];
    if (count >= min_count_ && (out_.count() == 0 || key != last_key_)) {
      out_.add(key);
      last_key_ = key;
    }
  }

  [[noreturn, gnu::cold, gnu::noinline]] void refuse_order() const {
    refuse(lines_, "not ordered by hash (after " + hash_hex(previous_) + "): the download ordered by hash is required");
  }

  BreachedWriter& out_;
  const uint64_t min_count_;
  uint64_t lines_ = 0;
  Hash previous_{};
  uint64_t last_key_ = 0;
};

// Reads [0, size) of a mapping in, kChunk at a time (MADV_POPULATE_READ:
// the disk reads and the page tables are filled in a thread of its own),
// at most kMapAhead chunks ahead of what the parser says it has reached,
// so the parser meets pages that are there. Only an advice: where it is
// not supported (before Linux 5.14) or lags, the parser's own page faults
// read the pages. The destructor stops the thread and joins it.
class MapAhead {
 public:
  MapAhead(const char* map, uint64_t size) : map_(map), size_(size), thread_([this] { run(); }) {}
  MapAhead(const MapAhead&) = delete;
  MapAhead& operator=(const MapAhead&) = delete;
  ~MapAhead() {
    stop_ = true;
    reached(~0ULL);
    thread_.join();
  }

  // The parser has reached `offset`.
  void reached(uint64_t offset) {
    parsed_ = offset;
    parsed_.notify_one();
  }

 private:
  void run() {
    for (uint64_t at = 0; at < size_; at += kChunk) {
      uint64_t parsed = parsed_;
      while (at > parsed && at - parsed >= kMapAhead * kChunk) {
        parsed_.wait(parsed);
        parsed = parsed_;
      }
      if (stop_) return;
      if (at + kChunk <= parsed) continue;  // the parser got there first
      void* chunk = const_cast<char*>(map_ + at);
      if (::madvise(chunk, std::min<uint64_t>(kChunk, size_ - at), MADV_POPULATE_READ) != 0 && errno == EINVAL) {
        return;  // not supported
      }
    }
  }

  const char* const map_;
  const uint64_t size_;
  std::atomic<uint64_t> parsed_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: started once the rest is built
};

// The input text in spans. A regular file is mapped (MADV_SEQUENTIAL, and
// read in ahead by a MapAhead): the lines are parsed in place, with no copy
// out of the page cache. Standard input, a pipe or a file that cannot be
// mapped is read() into a buffer. A mapped file that shrinks during the
// import kills the process with SIGBUS (the old list stays; the next run
// truncates the temp file). Not thread-safe.
class Source {
 public:
  explicit Source(const std::string& path) : path_(path) {
    fd_ = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) io_error("open " + path);
    if (::fstat(fd_, &st_) != 0) io_error("stat " + path);
    if (S_ISREG(st_.st_mode)) ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    void* map = size() > 0 ? ::mmap(nullptr, size(), PROT_READ, MAP_SHARED, fd_, 0) : MAP_FAILED;
    if (map != MAP_FAILED) {
      map_ = static_cast<char*>(map);
      ::madvise(map, size(), MADV_SEQUENTIAL);
      ahead_.emplace(map_, size());
    } else {
      buffer_.resize(kMaxLine + kChunk);
    }
  }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() {
    ahead_.reset();  // before the mapping goes
    if (map_) ::munmap(map_, size());
    if (fd_ > 0) ::close(fd_);
  }

  // The next span of the input: the last `keep` bytes of the span before
  // (REQUIRES: keep <= kMaxLine), then up to kChunk bytes not seen yet; no
  // new bytes at the end of the input.
  std::string_view next(size_t keep) {
    if (map_) {
      const uint64_t from = offset_ - keep;
      // The pages before `from` are parsed: dropped from this process's
      // page tables, so it never holds more than a few chunks of the input.
      const uint64_t done = from / page_ * page_;
      if (done > released_) {
        ::madvise(map_ + released_, done - released_, MADV_DONTNEED);
        released_ = done;
      }
      ahead_->reached(from);
      offset_ = std::min<uint64_t>(size(), offset_ + kChunk);
      return {map_ + from, offset_ - from};
    }
    std::memmove(buffer_.data(), buffer_.data() + held_ - keep, keep);
    for (;;) {  // what one read() gives: a pipe's writer runs on while this parses
      const ssize_t got = ::read(fd_, buffer_.data() + keep, buffer_.size() - keep);
      if (got >= 0) {
        held_ = keep + static_cast<size_t>(got);
        return {buffer_.data(), held_};
      }
      if (errno != EINTR) io_error("read " + path_);
    }
  }

  uint64_t size() const { return S_ISREG(st_.st_mode) ? static_cast<uint64_t>(st_.st_size) : 0; }
  int64_t mtime() const { return static_cast<int64_t>(st_.st_mtime); }

 private:
  std::string path_;
  int fd_ = -1;
  struct stat st_ {};
  const uint64_t page_ = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  char* map_ = nullptr;    // the whole file, when mapped
  uint64_t offset_ = 0;    // of the mapping: handed out up to here
  uint64_t released_ = 0;  // of the mapping: dropped up to here
  std::optional<MapAhead> ahead_;
  std::vector<char> buffer_;  // when not mapped: held_ bytes of the input
  size_t held_ = 0;
};

}  // namespace

namespace {

// Creates `path` anew (O_EXCL | O_NOFOLLOW): never a file someone put
// there, never through a symbolic link planted at its name. A regular file
// left by an import that died (nobody holds its lock) is removed first; one
// whose lock is held is another import's. Returns the new file's
// descriptor, locked.
int create_locked(const std::string& path) {
  constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(path.c_str(), kCreate, 0644);
  if (fd < 0 && errno == EEXIST) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      throw std::runtime_error(path + ": exists and is not a regular file (a symbolic link?); remove it");
    }
    const int left = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (left >= 0 && ::flock(left, LOCK_EX | LOCK_NB) != 0) {
      ::close(left);
      throw std::runtime_error(path + ": another import is writing it");
    }
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) io_error("remove " + path);
    if (left >= 0) ::close(left);
    fd = ::open(path.c_str(), kCreate, 0644);
  }
  if (fd < 0) io_error("create " + path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    throw std::runtime_error(path + ": another import is writing it");
  }
  return fd;
}

}  // namespace

BreachedWriter::BreachedWriter(const std::string& target) : target_(target), path_(target + ".tmp") {
  fd_ = create_locked(path_);
  buffer_.reserve(kBufferEntries);
  const std::vector<char> blank(kBreachedPage);  // the header page: the real header goes in last
  write_all(fd_, blank.data(), blank.size(), path_);
}

BreachedWriter::~BreachedWriter() {
  if (fd_ >= 0) {
    ::unlink(path_.c_str());  // not committed: nothing of it stays
    ::close(fd_);
  }
}

void BreachedWriter::flush() {
  write_all(fd_, buffer_.data(), buffer_.size() * 8, path_);
  // The disk writes what is dirty while the import goes on, so commit()'s
  // fsync has little left to wait for (2 against 40-47 ms for 80 MB here).
  ::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
  buffer_.clear();
}

void BreachedWriter::commit(BreachedHeader header) {
  // The entries' last page is padded with zeros; the index follows.
  buffer_.resize(buffer_.size() + (kEntriesPerPage - count_ % kEntriesPerPage) % kEntriesPerPage, 0);
  flush();
  write_all(fd_, index_.data(), index_.size() * 8, path_);
  std::memcpy(header.magic, kBreachedMagic, sizeof header.magic);
  header.version = kBreachedVersion;
  header.header_size = kBreachedPage;
  header.count = count_;
  header.index_offset = breached_index_offset(count_);
  if (::pwrite(fd_, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) io_error("write " + path_);
  if (::fsync(fd_) != 0) io_error("fsync " + path_);
  if (::rename(path_.c_str(), target_.c_str()) != 0) io_error("rename " + path_ + " to " + target_);
  ::close(fd_);
  fd_ = -1;
  const auto slash = target_.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : target_.substr(0, slash);
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

BreachedImportResult import_breached(const std::string& source, const std::string& target,
                                     const BreachedImportOptions& options) {
  Source in(source);
  BreachedWriter out(target);
  LineReader reader(out, options.min_count);
  BreachedImportProgress progress{0, 0, in.size()};
  using Clock = std::chrono::steady_clock;
  const auto every =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.progress_seconds));
  auto next_report = Clock::now() + every;

  size_t kept = 0;  // the unfinished line at the end of the span before
  for (;;) {
    const std::string_view span = in.next(kept);
    if (span.size() == kept) break;
    progress.bytes += span.size() - kept;
    const char* end = span.data() + span.size();
    kept = static_cast<size_t>(end - reader.take(span.data(), end));
    progress.lines = reader.lines();
    if (kept > kMaxLine) refuse(progress.lines + 1, "longer than a SHA1:COUNT line");
    if (options.progress && Clock::now() >= next_report) {  // once per chunk
      options.progress(progress);
      next_report = Clock::now() + every;
    }
  }
  if (kept > 0) refuse(progress.lines + 1, "truncated: the file ends inside a line");
  if (options.progress) options.progress(progress);

  BreachedHeader header{};
  header.min_count = options.min_count;
  header.source_size = progress.bytes;
  header.source_mtime = in.mtime();
  header.created_at = options.now;
  out.commit(header);
  return {progress.lines, out.count()};
}

}  // namespace svc::crypto
