// libsodium's Argon2id verify as is and with its arena kept, on one stored hash.
//
//   argon2_impls loop NAME HASH PASSWORD SECONDS PROCS
//
// NAME's verify in a loop in PROCS processes for SECONDS, printing one JSON
// line ({"mode","impl","procs","ops","seconds","ops_per_s"}): `make bench`
// runs each candidate and uses the fastest as the login floor. NAME "hash":
// crypto_pwhash_str with HASH's m and t instead, the sign-up floor.
//
// Candidates (libargon2, Botan 2 and libgcrypt were measured too until issue
// 52: two to three times slower in every run, docs/benchmarks-history.md,
// where the per-verify times and page faults of each are):
//   sodium          crypto_pwhash_str_verify as is (fresh mmap per hash)
//   sodium-kept     the same, libsodium's mmap/munmap of the arena served
//                   from a region kept per process (interposed below; svc's
//                   own version is src/crypto/argon2_arena.cpp)
//   sodium-kept-thp the same, kept region madvise(MADV_HUGEPAGE)
#include <sodium.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

// ---- the interposed mmap (bench only: measures what keeping libsodium's
// arena would buy). Armed per thread around one crypto_pwhash_str_verify;
// everything else goes straight to the kernel.
thread_local bool g_armed = false;
bool g_thp = false;
void* g_kept = nullptr;
size_t g_kept_len = 0;
void* g_map = nullptr;  // the mapping g_kept lies in
size_t g_map_len = 0;
bool g_kept_in_use = false;

void* raw_mmap(void* a, size_t l, int p, int f, int fd, off_t o) {
  return reinterpret_cast<void*>(syscall(SYS_mmap, a, l, p, f, fd, o));
}

}  // namespace

extern "C" void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  if (g_armed && addr == nullptr && fd == -1 && (flags & MAP_ANONYMOUS) && !g_kept_in_use) {
    if (g_kept == nullptr || g_kept_len != len) {
      if (g_kept) syscall(SYS_munmap, g_map, g_map_len);
      // With THP: 2 MiB longer and started on a 2 MiB boundary, as svc's
      // arena (src/crypto/argon2_arena.cpp), so all of it can be huge pages.
      const size_t huge = size_t{2} << 20, map_len = g_thp ? len + huge : len;
      g_map = raw_mmap(nullptr, map_len, prot, flags, fd, off);
      if (g_map == MAP_FAILED) {
        g_kept = g_map = nullptr;
        return MAP_FAILED;
      }
      g_map_len = map_len;
      g_kept = g_thp ? reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(g_map) + huge - 1) & ~(huge - 1)) : g_map;
      g_kept_len = len;
      if (g_thp) madvise(g_kept, len, MADV_HUGEPAGE);
    }
    g_kept_in_use = true;
    return g_kept;
  }
  return raw_mmap(addr, len, prot, flags, fd, off);
}

extern "C" int munmap(void* addr, size_t len) {
  if (g_kept_in_use && addr == g_kept && len == g_kept_len) {
    g_kept_in_use = false;
    return 0;
  }
  return static_cast<int>(syscall(SYS_munmap, addr, len));
}

namespace {

double now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Candidate {
  std::string name;
  std::function<void()> setup;
  std::function<bool()> verify;
};

std::vector<Candidate> candidates(const std::string& hash, const std::string& pw) {
  auto sodium = [hash, pw] { return crypto_pwhash_str_verify(hash.c_str(), pw.data(), pw.size()) == 0; };
  auto sodium_kept = [hash, pw] {
    g_armed = true;
    bool ok = crypto_pwhash_str_verify(hash.c_str(), pw.data(), pw.size()) == 0;
    g_armed = false;
    return ok;
  };
  return {
      {"sodium", [] {}, sodium},
      {"sodium-kept", [] {}, sodium_kept},
      {"sodium-kept-thp", [] { g_thp = true; }, sodium_kept},
  };
}

// The sign-up floor: a new hash with the stored hash's m and t (not a candidate of compare).
Candidate hash_candidate(const std::string& hash, const std::string& pw) {
  unsigned m = 0, t = 0;
  const char* params = strstr(hash.c_str(), "$m=");
  if (!params || sscanf(params, "$m=%u,t=%u", &m, &t) != 2) m = t = 0;
  return {"hash", [] {},
          [m, t, pw] {
            char out[crypto_pwhash_STRBYTES];
            return m > 0 && crypto_pwhash_str(out, pw.data(), pw.size(), t, size_t{m} * 1024) == 0;
          }};
}

// One candidate's verify (or hash) loop.
long verify_loop(void* candidate, double seconds) {
  const Candidate& c = *static_cast<const Candidate*>(candidate);
  c.setup();
  long n = 0;
  double end = now_ms() + seconds * 1e3;
  while (now_ms() < end) {
    if (!c.verify()) return -1;
    ++n;
  }
  return n;
}

// verify_loop in `procs` forked processes at once (one per core), their counts summed through a pipe.
int loop(const Candidate& c, double seconds, int procs) {
  int fds[2];
  if (pipe(fds) != 0) return 1;
  const double started = now_ms();
  for (int i = 0; i < procs; ++i) {
    if (fork() == 0) {
      const long n = verify_loop(const_cast<Candidate*>(&c), seconds);
      _exit(write(fds[1], &n, sizeof n) == static_cast<ssize_t>(sizeof n) ? 0 : 1);
    }
  }
  close(fds[1]);
  long total = 0, n = 0;
  while (read(fds[0], &n, sizeof n) == static_cast<ssize_t>(sizeof n)) total = (n < 0 || total < 0) ? -1 : total + n;
  close(fds[0]);
  while (wait(nullptr) > 0) {
  }
  const double elapsed = (now_ms() - started) / 1e3;
  if (total < 0) {
    fprintf(stderr, "argon2_impls: %s failed to verify\n", c.name.c_str());
    return 1;
  }
  printf("{\"mode\":\"%s\",\"impl\":\"%s\",\"procs\":%d,\"ops\":%ld,\"seconds\":%.3f,\"ops_per_s\":%.2f}\n",
         c.name == "hash" ? "hash" : "verify", c.name.c_str(), procs, total, elapsed,
         static_cast<double>(total) / elapsed);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7 || std::string(argv[1]) != "loop") {
    fprintf(stderr, "usage: %s loop NAME HASH PASSWORD SECONDS PROCS\n", argv[0]);
    return 2;
  }
  if (sodium_init() < 0) return 1;
  const std::string name = argv[2], hash = argv[3], pw = argv[4];
  const double seconds = atof(argv[5]);
  const int procs = std::max(1, atoi(argv[6]));
  if (name == "hash") return loop(hash_candidate(hash, pw), seconds, procs);
  for (const auto& c : candidates(hash, pw))
    if (c.name == name) return loop(c, seconds, procs);
  fprintf(stderr, "argon2_impls: no candidate %s\n", name.c_str());
  return 2;
}
