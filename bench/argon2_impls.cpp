// libsodium's Argon2id verify as is and with its arena kept, on one stored hash.
//
//   argon2_impls compare HASH PASSWORD ROUNDS VERIFIES_PER_ROUND [NAME...]
//   argon2_impls loop NAME HASH PASSWORD SECONDS PROCS
//
// compare: per-verify time of every candidate, interleaved so that they share
// the machine's noise. Each round runs every candidate (rotating the order)
// in a freshly forked child, as a pool worker would be: one warm-up verify
// (not timed, so a kept arena is already faulted in), then
// VERIFIES_PER_ROUND timed verifies. Prints one JSON line per candidate:
// median and p90 ms per verify, minor page faults per verify, the child's
// peak RSS (KiB).
// loop: NAME's verify in a loop in PROCS processes for SECONDS, printing one
// JSON line ({"mode","impl","procs","ops","seconds","ops_per_s"}), so `make
// bench` can use the fastest candidate as the login floor; NAME "hash":
// crypto_pwhash_str with HASH's m and t instead, the sign-up floor.
//
// Candidates (libargon2, Botan 2 and libgcrypt were measured too until issue
// 52: two to three times slower in every run, docs/benchmarks-history.md):
//   sodium          crypto_pwhash_str_verify as is (fresh mmap per hash)
//   sodium-kept     the same, libsodium's mmap/munmap of the arena served
//                   from a region kept per process (interposed below; svc's
//                   own version is src/crypto/argon2_arena.cpp)
//   sodium-kept-thp the same, kept region madvise(MADV_HUGEPAGE)
#include <sodium.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "proc_loop.h"

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

double now_ms() { return bench_now_s() * 1e3; }

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
  return {"hash", [] {}, [m, t, pw] {
            char out[crypto_pwhash_STRBYTES];
            return m > 0 && crypto_pwhash_str(out, pw.data(), pw.size(), t, size_t{m} * 1024) == 0;
          }};
}

struct Sample {
  std::vector<double> ms;
  double faults = 0;  // per verify
  long rss_kib = 0;
};

// Runs one candidate in a child; returns its timings (empty on failure).
Sample run_child(const Candidate& c, int n) {
  int fds[2];
  if (pipe(fds) != 0) exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    c.setup();
    std::vector<double> out(static_cast<size_t>(n) + 2, -1);
    if (c.verify()) {  // warm-up
      rusage r0{}, r1{};
      getrusage(RUSAGE_SELF, &r0);
      for (int i = 0; i < n; ++i) {
        double t0 = now_ms();
        bool ok = c.verify();
        out[static_cast<size_t>(i)] = ok ? now_ms() - t0 : -1;
      }
      getrusage(RUSAGE_SELF, &r1);
      out[static_cast<size_t>(n)] = static_cast<double>(r1.ru_minflt - r0.ru_minflt) / n;
      out[static_cast<size_t>(n) + 1] = static_cast<double>(r1.ru_maxrss);
    }
    ssize_t w = write(fds[1], out.data(), out.size() * sizeof(double));
    _exit(w > 0 ? 0 : 1);
  }
  close(fds[1]);
  std::vector<double> in(static_cast<size_t>(n) + 2, -1);
  size_t got = 0;
  auto* p = reinterpret_cast<char*>(in.data());
  while (got < in.size() * sizeof(double)) {
    ssize_t r = read(fds[0], p + got, in.size() * sizeof(double) - got);
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  Sample s;
  for (int i = 0; i < n; ++i)
    if (in[static_cast<size_t>(i)] < 0) return {};
  s.ms.assign(in.begin(), in.begin() + n);
  s.faults = in[static_cast<size_t>(n)];
  s.rss_kib = static_cast<long>(in[static_cast<size_t>(n) + 1]);
  return s;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

int compare(const std::vector<Candidate>& all, int rounds, int per, const std::vector<std::string>& names) {
  std::vector<Candidate> chosen;
  for (const auto& c : all)
    if (names.empty() || std::find(names.begin(), names.end(), c.name) != names.end()) chosen.push_back(c);
  std::vector<Sample> acc(chosen.size());
  bool failed = false;
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < chosen.size(); ++k) {
      size_t i = (k + static_cast<size_t>(r)) % chosen.size();
      Sample s = run_child(chosen[i], per);
      if (s.ms.empty()) {
        fprintf(stderr, "argon2_impls: %s failed to verify\n", chosen[i].name.c_str());
        failed = true;
        continue;
      }
      acc[i].ms.insert(acc[i].ms.end(), s.ms.begin(), s.ms.end());
      acc[i].faults += s.faults / rounds;
      acc[i].rss_kib = std::max(acc[i].rss_kib, s.rss_kib);
    }
  }
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (acc[i].ms.empty()) continue;
    printf(
        "{\"impl\":\"%s\",\"n\":%zu,\"median_ms\":%.2f,\"p90_ms\":%.2f,\"faults_per_verify\":%.0f,\"rss_kib\":%ld}\n",
        chosen[i].name.c_str(), acc[i].ms.size(), quantile(acc[i].ms, 0.5), quantile(acc[i].ms, 0.9), acc[i].faults,
        acc[i].rss_kib);
  }
  return failed ? 1 : 0;
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

int loop(const Candidate& c, double seconds, int procs) {
  double elapsed = 0;
  long total = proc_loop(procs, seconds, verify_loop, const_cast<Candidate*>(&c), &elapsed);
  if (total < 0) {
    fprintf(stderr, "argon2_impls: %s failed to verify\n", c.name.c_str());
    return 1;
  }
  printf("{\"mode\":\"%s\",\"impl\":\"%s\",\"procs\":%d,\"ops\":%ld,\"seconds\":%.3f,\"ops_per_s\":%.2f}\n",
         c.name == "hash" ? "hash" : "verify", c.name.c_str(), procs, total, elapsed, static_cast<double>(total) / elapsed);
  return 0;
}

int usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s compare HASH PASSWORD ROUNDS VERIFIES_PER_ROUND [NAME...]\n"
          "       %s loop NAME HASH PASSWORD SECONDS PROCS\n",
          argv0, argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(argv[0]);
  if (sodium_init() < 0) return 1;
  const std::string mode = argv[1];
  const bool is_loop = mode == "loop";
  if ((mode != "compare" && !is_loop) || argc < 6 || (is_loop && argc != 7)) return usage(argv[0]);
  const std::string hash = argv[is_loop ? 3 : 2], pw = argv[is_loop ? 4 : 3];
  const std::vector<Candidate> all = candidates(hash, pw);
  if (is_loop) {
    if (std::string(argv[2]) == "hash") return loop(hash_candidate(hash, pw), atof(argv[5]), std::max(1, atoi(argv[6])));
    for (const auto& c : all)
      if (c.name == argv[2]) return loop(c, atof(argv[5]), std::max(1, atoi(argv[6])));
    fprintf(stderr, "argon2_impls: no candidate %s in this build\n", argv[2]);
    return 2;
  }
  return compare(all, atoi(argv[4]), atoi(argv[5]), std::vector<std::string>(argv + 6, argv + argc));
}
