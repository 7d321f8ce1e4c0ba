#pragma once
// The configured breached-password list as a worker sees it ([auth]
// breached_list): the mapped file, re-checked with stat() at most once per
// second of the caller's clock, so a list replaced by `svc-admin passwords
// import-breached` (a rename: a new inode) is picked up without a restart,
// and a removed one stops being used. A file cut short in place while
// mapped answers nullopt (no list) instead of killing the process with
// SIGBUS, until a stat finds it whole again.
//
// Thread safety: none (one per worker process, like the other caches); a
// lookup briefly installs a process-wide SIGBUS handler, so lookups of two
// threads must not overlap.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crypto/breached_file.hpp"

namespace svc::crypto {

class BreachedList {
 public:
  // "" = no list configured: every lookup answers nullopt and nothing is
  // ever opened.
  explicit BreachedList(std::string path) : path_(std::move(path)) {}

  bool configured() const { return !path_.empty(); }

  // Whether `password` is listed; nullopt when no list is configured or the
  // configured file is missing or not a list (then the password rule goes
  // on without it; `svc-admin doctor` reports the file). `now`: unix
  // seconds, for the once-a-second stat.
  std::optional<bool> listed(std::string_view password, long long now);

 private:
  // Stats the path (once per `now`) and maps it again if it changed, `key`
  // being the lookup that follows.
  void refresh(long long now, uint64_t key);

  std::string path_;
  std::optional<BreachedFile> file_;
  long long checked_at_ = -1;
  // What the mapped file was: a rename or rewrite changes one of them.
  unsigned long long ino_ = 0, dev_ = 0;
  long long mtime_ns_ = 0, size_ = -1;
  // A file was just mapped: its page index is read ahead after the first
  // lookup (BreachedFile::read_index_ahead).
  bool index_ahead_ = false;
};

}  // namespace svc::crypto
