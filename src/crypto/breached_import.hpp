#pragma once
// Turning the Have I Been Pwned download (text lines "SHA1:COUNT", the hash
// in hex, ordered by hash, LF or CRLF) into the file of breached_file.hpp.
// One pass, constant memory (the input is already sorted), no network.

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

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

// Reads `source` (a file or "-" for standard input) and writes the list to
// `target` + ".tmp" (locked with flock, so two imports do not mix), then
// fsyncs and renames it over `target`: readers see the old list or the new
// one, never a part. A rerun starts over (the temp file is truncated).
// Throws BreachedImportError for a malformed, unsorted or truncated input
// (the temp file is removed, `target` is untouched) and std::runtime_error
// for I/O errors.
BreachedImportResult import_breached(const std::string& source, const std::string& target,
                                     const BreachedImportOptions& options);

}  // namespace svc::crypto
