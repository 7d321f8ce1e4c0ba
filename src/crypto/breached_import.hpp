#pragma once
// Turning the Have I Been Pwned download (text lines "SHA1:COUNT", the hash
// in hex, ordered by hash, LF or CRLF) into the file of breached_file.hpp.
// One pass, no network, memory bounded by the output's page index (8 bytes
// per 512 entries: 16 MB for the whole download); the input is already sorted.

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "crypto/breached_file.hpp"

namespace svc::crypto {

// A refused input: names the line and what is wrong with it ("line 7: not
// ordered by hash", "line 9: truncated ..."). The target was not touched.
class BreachedImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BreachedImportProgress {
  uint64_t lines = 0;
  uint64_t bytes = 0;  // of the input read so far
  uint64_t total = 0;  // the input's size (0 when unknown: a pipe)
};

struct BreachedImportResult {
  uint64_t lines = 0;    // lines read
  uint64_t entries = 0;  // entries written (COUNT >= min_count, 64-bit prefixes merged)
};

struct BreachedImportOptions {
  uint64_t min_count = 1;  // leave out lines whose COUNT is lower
  int64_t now = 0;         // the header's created_at
  // Called about every `progress_seconds` (steady clock), and once at the end.
  std::function<void(const BreachedImportProgress&)> progress;
  double progress_seconds = 3;
};

// Writes a version-2 list (breached_file.hpp) to `target` + ".tmp", created
// anew with O_EXCL | O_NOFOLLOW (never through a symbolic link, never into
// a file someone else made: a non-regular file there is refused, a regular
// one left by a dead import replaced) and locked with flock (two writers do
// not mix; one whose lock is held is refused):
// keys go in ascending order through an 8 MiB buffer (each write's
// writeback started at once: sync_file_range), commit() adds the
// padding, the page index and the header, fsyncs and renames over `target`
// (readers see the old list or the new one, never a part). Destroyed
// without commit(), the temp file is removed. Throws std::runtime_error
// for I/O errors. Not thread-safe.
class BreachedWriter {
 public:
  explicit BreachedWriter(const std::string& target);
  BreachedWriter(const BreachedWriter&) = delete;
  BreachedWriter& operator=(const BreachedWriter&) = delete;
  ~BreachedWriter();

  // REQUIRES: key above the one added before.
  void add(uint64_t key) {
    if (count_ % kEntriesPerPage == 0) index_.push_back(key);
    buffer_.push_back(key);
    ++count_;
    if (buffer_.size() == kBufferEntries) flush();
  }
  uint64_t count() const { return count_; }

  // `header`'s min_count, source_size, source_mtime and created_at are kept;
  // the rest is filled in.
  void commit(BreachedHeader header);

 private:
  static constexpr size_t kBufferEntries = size_t{1} << 20;
  void flush();

  std::string target_, path_;
  int fd_ = -1;
  std::vector<uint64_t> buffer_, index_;
  uint64_t count_ = 0;
};

// Reads `source` (a file or "-" for standard input) and writes the list
// through a BreachedWriter: readers see the old list or the new one, never
// a part. A rerun starts over (the temp file is made anew). A regular file
// is mapped and parsed in place; a thread of its own for the call reads it
// in at most 32 MiB ahead of the parsing (it ends before this returns or
// throws). A pipe is read() as it comes. A mapped file that shrinks while
// it is read kills the process (SIGBUS): the old list stays.
// Throws BreachedImportError for a malformed, unsorted or truncated input
// (the temp file is removed, `target` is untouched) and std::runtime_error
// for I/O errors.
BreachedImportResult import_breached(const std::string& source, const std::string& target,
                                     const BreachedImportOptions& options);

}  // namespace svc::crypto
