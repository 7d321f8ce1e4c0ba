#include "crypto/breached_list.hpp"

#include <sys/stat.h>

#include <utility>

#include "core/log.hpp"

namespace svc::crypto {

void BreachedList::refresh(long long now, uint64_t key) {
  if (now == checked_at_) return;
  checked_at_ = now;
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    file_.reset();  // removed: no list until one is there again
    size_ = -1;
    return;
  }
  const long long mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  if (file_ && st.st_ino == ino_ && st.st_dev == dev_ && mtime_ns == mtime_ns_ && st.st_size == size_) return;
  ino_ = st.st_ino;
  dev_ = st.st_dev;
  mtime_ns_ = mtime_ns;
  size_ = st.st_size;
  std::string error;
  file_ = BreachedFile::open(path_, error, key);  // its index page read with the header
  index_ahead_ = file_.has_value();
  if (!file_) core::LogLine("warn", "breached_list_unusable").str("detail", error).emit();
}

std::optional<bool> BreachedList::listed(std::string_view password, long long now) {
  if (path_.empty()) return std::nullopt;
  const uint64_t key = breached_key(password);
  refresh(now, key);
  if (!file_) return std::nullopt;
  const bool found = file_->contains(key);
  // After the first lookup, not before: queued first, the index's reads
  // would make that lookup wait for all of them.
  if (std::exchange(index_ahead_, false)) file_->read_index_ahead();
  return found;
}

}  // namespace svc::crypto
