#include "crypto/breached_import.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
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

constexpr size_t kReadBuffer = 8 << 20;
constexpr size_t kHashDigits = 40;
constexpr size_t kMaxLine = 128;  // longer is not a line of the download

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
// 16 hex digits (either case) at p as a number, 16 bytes at once; false
// when one is not a hex digit.
[[gnu::always_inline]] inline bool parse_hex16(const char* p, uint64_t& out) {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));  // A-F to a-f; digits keep their value
  const __m128i digit =
      _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
  const __m128i letter =
      _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
  if (_mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xFFFF) return false;
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
#else
[[gnu::always_inline]] inline bool parse_hex16(const char* p, uint64_t& out) {
  auto key = breached_key_of_hex(std::string_view(p, 16));
  out = key.value_or(0);
  return key.has_value();
}
#endif

// A line's SHA-1 as three numbers (digits 0-15, 16-31, 32-39): compared as
// a tuple, the order of the hash, whatever the case of its hex digits.
using Hash = std::tuple<uint64_t, uint64_t, uint64_t>;

std::string hash_hex(const Hash& h) {
  char out[kHashDigits + 1];
  std::snprintf(out, sizeof out, "%016llX%016llX%08llX", static_cast<unsigned long long>(std::get<0>(h)),
                static_cast<unsigned long long>(std::get<1>(h)), static_cast<unsigned long long>(std::get<2>(h)));
  return out;
}

// One line without its end of line: 40 hex digits, ':', a decimal count.
// Returns the count; the hash must be above `previous` (all 40 digits
// compared: the download has no repeated hash), which becomes this one.
uint64_t parse_line(const char* p, size_t size, uint64_t line, Hash& previous) {
  if (size < kHashDigits + 2 || p[kHashDigits] != ':') refuse(line, "not a SHA1:COUNT line (truncated or malformed)");
  Hash hash;
  uint64_t tail = 0;  // digits 24-39: the low half is 32-39
  if (!parse_hex16(p, std::get<0>(hash)) || !parse_hex16(p + 16, std::get<1>(hash)) || !parse_hex16(p + 24, tail)) {
    refuse(line, "the hash is not 40 hex digits (or the line is cut short)");
  }
  std::get<2>(hash) = tail & 0xFFFFFFFFULL;
  if (line > 1 && hash <= previous) {
    refuse(line, "not ordered by hash (after " + hash_hex(previous) + "): the download ordered by hash is required");
  }
  previous = hash;
  uint64_t count = 0;
  for (size_t i = kHashDigits + 1; i < size; ++i) {
    const unsigned digit = static_cast<unsigned char>(p[i]) - static_cast<unsigned>('0');
    if (digit > 9 || count > (~0ULL - 9) / 10) refuse(line, "the count is not a decimal number");
    count = count * 10 + digit;
  }
  return count;
}

class Source {
 public:
  explicit Source(const std::string& path) : path_(path) {
    fd_ = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) io_error("open " + path);
    if (::fstat(fd_, &st_) != 0) io_error("stat " + path);
    if (S_ISREG(st_.st_mode)) ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() {
    if (fd_ > 0) ::close(fd_);
  }
  // Reads into buf[0, cap); 0 at the end.
  size_t read(char* buf, size_t cap) {
    for (;;) {
      const ssize_t n = ::read(fd_, buf, cap);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) io_error("read " + path_);
    }
  }
  uint64_t size() const { return S_ISREG(st_.st_mode) ? static_cast<uint64_t>(st_.st_size) : 0; }
  int64_t mtime() const { return static_cast<int64_t>(st_.st_mtime); }

 private:
  std::string path_;
  int fd_ = -1;
  struct stat st_ {};
};

// Reads `in` ahead in a thread of its own into a ring of buffers, so the
// disk, the copy out of the page cache and the parsing overlap. Each buffer
// has kMaxLine bytes of room before its data, where the consumer puts the
// unfinished line of the buffer before. Not thread-safe beyond its one
// consumer; the destructor stops the reader and joins it.
class ReadAhead {
 public:
  struct Chunk {
    std::vector<char> bytes = std::vector<char>(kMaxLine + kReadBuffer);
    size_t size = 0;    // bytes read, at bytes[kMaxLine]; 0 = the end
    bool full = false;  // read, not yet released by the consumer
    char* data() { return bytes.data() + kMaxLine; }
  };

  explicit ReadAhead(Source& in) : in_(in), thread_([this] { run(); }) {}
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  ~ReadAhead() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  // The next chunk in order, once read; rethrows the reader's error.
  Chunk& next() {
    Chunk& c = ring_[next_];
    next_ = (next_ + 1) % kRing;
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return c.full || error_; });
    if (!c.full) std::rethrow_exception(error_);
    return c;
  }

  // Gives a chunk next() returned back to the reader.
  void release(Chunk& c) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      c.full = false;
    }
    changed_.notify_all();
  }

 private:
  static constexpr size_t kRing = 3;

  void run() {
    try {
      for (size_t i = 0;; i = (i + 1) % kRing) {
        Chunk& c = ring_[i];
        {
          std::unique_lock<std::mutex> lock(mutex_);
          changed_.wait(lock, [&] { return stop_ || !c.full; });
          if (stop_) return;
        }
        size_t n = 0;  // whole buffers, short only at the end
        for (size_t got = 1; got > 0 && n < kReadBuffer;) n += got = in_.read(c.data() + n, kReadBuffer - n);
        {
          std::lock_guard<std::mutex> lock(mutex_);
          c.size = n;
          c.full = true;
        }
        changed_.notify_all();
        if (n == 0) return;
      }
    } catch (...) {  // a read error: the consumer's next() throws it
      {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
      }
      changed_.notify_all();
    }
  }

  Source& in_;
  Chunk ring_[kRing];
  size_t next_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the rest is built
};

}  // namespace

BreachedWriter::BreachedWriter(const std::string& target) : target_(target), path_(target + ".tmp") {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) io_error("open " + path_);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(path_ + ": another import is writing it");
  }
  if (::ftruncate(fd_, 0) != 0) io_error("truncate " + path_);
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
  BreachedImportProgress progress{0, 0, in.size()};
  using Clock = std::chrono::steady_clock;
  const auto every =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.progress_seconds));
  auto next_report = Clock::now() + every;

  Hash previous{};
  uint64_t last_key = 0;
  ReadAhead ahead(in);
  ReadAhead::Chunk* before = nullptr;  // holds the unfinished line
  const char* tail = nullptr;          // that line, `kept` bytes
  size_t kept = 0;
  for (;;) {
    ReadAhead::Chunk& chunk = ahead.next();
    const size_t n = chunk.size;
    progress.bytes += n;
    if (n == 0) break;
    if (kept != 0) std::memcpy(chunk.data() - kept, tail, kept);  // the unfinished line goes in front
    const char* p = chunk.data() - kept;
    if (before) ahead.release(*before);
    before = &chunk;
    const char* end = chunk.data() + n;
    for (;;) {
      // A line is at least "HASH:N": its end of line is sought after that
      // (a line cut shorter fails the hash check, at its own line number).
      if (end - p < static_cast<ptrdiff_t>(kHashDigits + 2)) break;
      const char* eol = p + kHashDigits + 1;
      while (eol < end && *eol != '\n') ++eol;
      if (eol == end) break;
      ++progress.lines;
      const size_t size = static_cast<size_t>(eol - p) - (eol > p && eol[-1] == '\r' ? 1 : 0);
      const uint64_t count = parse_line(p, size, progress.lines, previous);
      const uint64_t key = std::get<0>(previous);
      // Two hashes that agree in their first 64 bits are one entry.
      if (count >= options.min_count && (out.count() == 0 || key != last_key)) {
        out.add(key);
        last_key = key;
      }
      p = eol + 1;
    }
    kept = static_cast<size_t>(end - p);
    tail = p;
    if (kept > kMaxLine) refuse(progress.lines + 1, "longer than a SHA1:COUNT line");
    if (options.progress && Clock::now() >= next_report) {  // once per 8 MiB read
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
