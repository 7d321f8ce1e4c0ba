#include "crypto/breached_import.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <vector>

#include "crypto/breached_file.hpp"

// The entries are written in the host's order and read back by mapping:
// little-endian, as the format says.
static_assert(std::endian::native == std::endian::little);

namespace svc::crypto {
namespace {

constexpr size_t kReadBuffer = 4 << 20;
constexpr size_t kWriteBuffer = 1 << 20;  // bytes of entries before a write()
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

// The temp file beside the target: truncated, locked for this import.
class TempList {
 public:
  explicit TempList(const std::string& target) : path_(target + ".tmp") {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) io_error("open " + path_);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw std::runtime_error(path_ + ": another import is writing it");
    }
    if (::ftruncate(fd_, 0) != 0) io_error("truncate " + path_);
    buffer_.reserve(kWriteBuffer / 8);
    const BreachedHeader blank{};
    write_all(fd_, &blank, sizeof blank, path_);  // the real one goes in last
  }
  TempList(const TempList&) = delete;
  TempList& operator=(const TempList&) = delete;
  ~TempList() {
    if (fd_ >= 0) {
      ::unlink(path_.c_str());  // not committed: nothing of it stays
      ::close(fd_);
    }
  }

  void add(uint64_t key) {
    buffer_.push_back(key);
    ++count_;
    if (buffer_.size() * 8 >= kWriteBuffer) flush();
  }
  uint64_t count() const { return count_; }

  // Writes the header, fsyncs, renames over `target` and fsyncs its folder.
  void commit(BreachedHeader header, const std::string& target) {
    flush();
    header.count = count_;
    if (::pwrite(fd_, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) io_error("write " + path_);
    if (::fsync(fd_) != 0) io_error("fsync " + path_);
    if (::rename(path_.c_str(), target.c_str()) != 0) io_error("rename " + path_ + " to " + target);
    ::close(fd_);
    fd_ = -1;
    const auto slash = target.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

 private:
  void flush() {
    write_all(fd_, buffer_.data(), buffer_.size() * 8, path_);
    buffer_.clear();
  }

  std::string path_;
  int fd_ = -1;
  std::vector<uint64_t> buffer_;
  uint64_t count_ = 0;
};

// One line without its end of line: 40 hex digits, ':', a decimal count.
// Returns the count; the hash must be above `previous` (the whole 40
// digits compared: the download has no repeated hash).
uint64_t parse_line(const char* p, size_t size, uint64_t line, char* previous, uint64_t& key) {
  if (size < kHashDigits + 2 || p[kHashDigits] != ':') refuse(line, "not a SHA1:COUNT line (truncated or malformed)");
  auto parsed = breached_key_of_hex(std::string_view(p, 16));
  for (size_t i = 16; parsed && i < kHashDigits; ++i) {
    const char c = p[i];
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f'))) parsed.reset();
  }
  if (!parsed) refuse(line, "the hash is not 40 hex digits");
  if (line > 1 && std::memcmp(p, previous, kHashDigits) <= 0) {
    refuse(line, "not ordered by hash (after " + std::string(previous, kHashDigits) +
                     "): the download ordered by hash is required");
  }
  std::memcpy(previous, p, kHashDigits);
  uint64_t count = 0;
  for (size_t i = kHashDigits + 1; i < size; ++i) {
    const char c = p[i];
    if (c < '0' || c > '9' || count > (~0ULL - 9) / 10) refuse(line, "the count is not a decimal number");
    count = count * 10 + static_cast<uint64_t>(c - '0');
  }
  key = *parsed;
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

}  // namespace

BreachedImportResult import_breached(const std::string& source, const std::string& target,
                                     const BreachedImportOptions& options) {
  Source in(source);
  TempList out(target);
  BreachedImportProgress progress{0, 0, in.size()};
  using Clock = std::chrono::steady_clock;
  const auto every =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.progress_seconds));
  auto next_report = Clock::now() + every;

  std::vector<char> buf(kReadBuffer + kMaxLine);
  char previous[kHashDigits] = {};
  uint64_t last_key = 0;
  size_t kept = 0;  // bytes of an unfinished line at buf[0, kept)
  for (;;) {
    const size_t n = in.read(buf.data() + kept, kReadBuffer);
    progress.bytes += n;
    if (n == 0) break;
    const char* p = buf.data();
    const char* end = buf.data() + kept + n;
    for (;;) {
      const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!eol) break;
      ++progress.lines;
      const size_t size = static_cast<size_t>(eol - p) - (eol > p && eol[-1] == '\r' ? 1 : 0);
      uint64_t key = 0;
      const uint64_t count = parse_line(p, size, progress.lines, previous, key);
      // Two hashes that agree in their first 64 bits are one entry.
      if (count >= options.min_count && (out.count() == 0 || key != last_key)) {
        out.add(key);
        last_key = key;
      }
      p = eol + 1;
    }
    kept = static_cast<size_t>(end - p);
    if (kept > kMaxLine) refuse(progress.lines + 1, "longer than a SHA1:COUNT line");
    std::memmove(buf.data(), p, kept);
    if (options.progress && Clock::now() >= next_report) {  // once per 4 MiB read
      options.progress(progress);
      next_report = Clock::now() + every;
    }
  }
  if (kept > 0) refuse(progress.lines + 1, "truncated: the file ends inside a line");
  if (options.progress) options.progress(progress);

  BreachedHeader header{};
  std::memcpy(header.magic, kBreachedMagic, sizeof header.magic);
  header.version = kBreachedVersion;
  header.header_size = sizeof(BreachedHeader);
  header.min_count = options.min_count;
  header.source_size = progress.bytes;
  header.source_mtime = in.mtime();
  header.created_at = options.now;
  out.commit(header, target);
  return {progress.lines, out.count()};
}

}  // namespace svc::crypto
