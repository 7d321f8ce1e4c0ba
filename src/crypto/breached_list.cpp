#include "crypto/breached_list.hpp"

#include <sys/stat.h>

#include <csetjmp>
#include <csignal>
#include <utility>

#include "core/log.hpp"

namespace svc::crypto {
namespace {

// A list cut short in place (truncate, or a copy over it) leaves pages of
// the mapping with no file behind them: reading one raises SIGBUS, which
// would kill the worker. A lookup therefore runs with a SIGBUS handler of
// its own that jumps back out of the read, and the list is dropped until
// the next stat maps it again. The handler is installed around each lookup
// only (two system calls), so no other code's handler is replaced for
// longer than that.
sigjmp_buf* volatile g_lookup = nullptr;  // the lookup under way, if any
struct sigaction g_before {};             // the handler the lookup replaced

void on_sigbus(int sig, siginfo_t*, void*) {
  if (sigjmp_buf* jump = g_lookup) {
    g_lookup = nullptr;
    siglongjmp(*jump, 1);
  }
  ::sigaction(SIGBUS, &g_before, nullptr);  // not a lookup's fault: as it would have been
  ::raise(sig);
}

// Whether `key` is in `file`; nullopt when the file was cut under the mapping.
std::optional<bool> guarded_contains(const BreachedFile& file, uint64_t key) {
  struct sigaction ours {};
  ours.sa_sigaction = on_sigbus;
  ours.sa_flags = SA_SIGINFO;
  sigemptyset(&ours.sa_mask);
  if (::sigaction(SIGBUS, &ours, &g_before) != 0) return std::nullopt;
  sigjmp_buf jump;
  volatile int found = -1;  // -1: the read was cut
  if (sigsetjmp(jump, 1) == 0) {
    g_lookup = &jump;
    found = file.contains(key) ? 1 : 0;
    g_lookup = nullptr;
  }
  ::sigaction(SIGBUS, &g_before, nullptr);
  if (found < 0) return std::nullopt;
  return found == 1;
}

}  // namespace

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
  const auto found = guarded_contains(*file_, key);
  if (!found) {
    file_.reset();
    size_ = -1;  // the next stat maps it again
    core::LogLine("warn", "breached_list_unusable").str("detail", path_ + ": cut short while mapped").emit();
    return std::nullopt;
  }
  // After the first lookup, not before: queued first, the index's reads
  // would make that lookup wait for all of them.
  if (std::exchange(index_ahead_, false)) file_->read_index_ahead();
  return found;
}

}  // namespace svc::crypto
