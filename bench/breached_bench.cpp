// The breached-password list for `make bench` (issue 41), with svc's own
// code from build-release/libsvc_core.a, ratios against floors measured in
// the same process and run:
//
//   breached_bench lookup DIR ENTRIES ROUNDS
//     A list of ENTRIES uniform keys (DIR/lookup-ENTRIES.bin, written once
//     through BreachedWriter and kept for the next run), then per round:
//     svc's Argon2id verify (Argon2PasswordHasher, the default m = 19 MiB,
//     t = 2, the hash made here), warm lookups (the whole file in the page
//     cache), cold lookups (the entry pages dropped from the page cache with
//     POSIX_FADV_DONTNEED while unmapped, the page index read into it: a
//     worker's steady state), each including the SHA-1 of a password; and
//     cold opens: the whole file dropped, then open() for the password's
//     key and its lookup, as BreachedList does after a restart or an import
//     (kColdOpens a round). One JSON line.
//
//   breached_bench import DIR LINES ROUNDS
//     A sorted SHA1:COUNT file of LINES lines (DIR/import-LINES.txt, CRLF,
//     upper-case hex as the download; kept), then per round (bench.py asks
//     for 5 at least: single rounds vary 4x on a shared VM), in alternating
//     order, each with the file dropped from the page cache first: a plain
//     sequential read of it (read(), 8 MiB buffer, the import's own reading)
//     and `svc-admin passwords import-breached`'s import_breached() of it.
//     One JSON line.
//
// mincore() checks that a drop left the pages out of memory ("resident
// after drop", a fraction of the pages; a run where it is not ~0 measured
// a warm cache and says so).
#include <fcntl.h>
#include <sodium.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "crypto/breached_file.hpp"
#include "crypto/breached_import.hpp"
#include "crypto/password_hasher.hpp"

namespace {

using namespace svc::crypto;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

// User + system CPU seconds of this process (all its threads) so far.
double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

constexpr int kColdOpens = 10;

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

std::string joined(const std::vector<double>& v) {
  std::string out;
  char buf[32];
  for (double x : v) {
    std::snprintf(buf, sizeof buf, "%s%.3f", out.empty() ? "" : ",", x);
    out += buf;
  }
  return out;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "breached_bench: %s\n", what.c_str());
  std::exit(1);
}

// Drops [offset, offset + length) of `path` from the page cache (0 = to the end).
void drop(const std::string& path, off_t offset = 0, off_t length = 0) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open " + path);
  ::fdatasync(fd);
  ::posix_fadvise(fd, offset, length, POSIX_FADV_DONTNEED);
  ::close(fd);
}

// The fraction of the pages of [offset, offset + length) in the page cache.
double resident(const std::string& path, off_t offset, size_t length) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open " + path);
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, offset);
  ::close(fd);
  if (map == MAP_FAILED) die("mmap " + path);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((length + page - 1) / page);
  ::mincore(map, length, in.data());
  ::munmap(map, length);
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return in.empty() ? 0 : static_cast<double>(n) / static_cast<double>(in.size());
}

// Reads `path` start to end with `buffer`-sized read()s; returns the bytes.
uint64_t read_through(const std::string& path, std::vector<char>& buffer) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open " + path);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) die("read " + path);
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return total;
}

BreachedFile open_list(const std::string& path) {
  std::string error;
  auto file = BreachedFile::open(path, error);
  if (!file) die(error);
  return std::move(*file);
}

// ENTRIES keys, one in each of ENTRIES equal slices of the 64-bit range:
// ascending, and as uniform as SHA-1 prefixes. Written once, reused.
std::string make_list(const std::string& dir, uint64_t entries) {
  const std::string path = dir + "/lookup-" + std::to_string(entries) + ".bin";
  if (fs::exists(path) && fs::file_size(path) == breached_file_size(entries)) return path;
  std::mt19937_64 rng(41);
  const uint64_t slice = ~0ULL / entries;
  BreachedWriter writer(path);
  for (uint64_t i = 0; i < entries; ++i) writer.add(i * slice + rng() % slice);
  writer.commit(BreachedHeader{});
  return path;
}

// LINES lines "HASH:COUNT\r\n", the hashes ascending and uniform. Written once, reused.
std::string make_text(const std::string& dir, uint64_t lines) {
  const std::string path = dir + "/import-" + std::to_string(lines) + ".txt";
  if (fs::exists(path)) return path;  // written under another name, then renamed: complete
  std::mt19937_64 rng(42);
  const uint64_t slice = ~0ULL / lines;
  const std::string part = path + ".part";
  std::FILE* out = std::fopen(part.c_str(), "w");
  if (!out) die("create " + part);
  std::vector<char> buffer(8 << 20);
  std::setvbuf(out, buffer.data(), _IOFBF, buffer.size());
  for (uint64_t i = 0; i < lines; ++i) {
    std::fprintf(out, "%016llX%016llX%08llX:%llu\r\n", static_cast<unsigned long long>(i * slice + rng() % slice),
                 static_cast<unsigned long long>(rng()), static_cast<unsigned long long>(rng() & 0xFFFFFFFFULL),
                 static_cast<unsigned long long>(1 + rng() % 1000));
  }
  if (std::fclose(out) != 0) die("write " + part);
  fs::rename(part, path);
  return path;
}

// Reads [offset, offset + length) of `path` into the page cache.
void read_range(const std::string& path, off_t offset, size_t length) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open " + path);
  std::vector<char> buffer(length);
  if (::pread(fd, buffer.data(), length, offset) != static_cast<ssize_t>(length)) die("read " + path);
  ::close(fd);
}

int lookup(const std::string& dir, uint64_t entries, int rounds) {
  const std::string path = make_list(dir, entries);
  const uint64_t index_at = breached_index_offset(entries), size = breached_file_size(entries);
  Argon2PasswordHasher hasher(Argon2Params{}, "");
  const std::string stored = hasher.hash("bench-password");
  std::vector<double> verify_ms, warm_us, cold_us, open_us, dropped;
  std::vector<char> buffer(8 << 20);
  uint64_t hits = 0, serial = 0;
  auto password = [&] { return "bench-" + std::to_string(serial++); };
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 5; ++i) {
      const auto t = Clock::now();
      if (!hasher.verify(stored, "bench-password").ok) die("verify failed");
      verify_ms.push_back(us_since(t) / 1000);
    }
    {  // warm: every page in the cache and mapped before the timed lookups
      read_through(path, buffer);
      BreachedFile list = open_list(path);
      for (int i = 0; i < 20000; ++i) hits += list.contains_password(password()) ? 1 : 0;
      const auto t = Clock::now();
      const int n = 20000;
      for (int i = 0; i < n; ++i) hits += list.contains_password(password()) ? 1 : 0;
      warm_us.push_back(us_since(t) / n);
    }
    {  // cold: the entry pages out of the cache, the page index in it
      drop(path, 0, static_cast<off_t>(index_at));
      read_range(path, static_cast<off_t>(index_at), size - index_at);
      dropped.push_back(resident(path, kBreachedPage, index_at - kBreachedPage));
      BreachedFile list = open_list(path);
      for (int i = 0; i < 50; ++i) {
        const std::string p = password();
        const auto t = Clock::now();
        hits += list.contains_password(p) ? 1 : 0;
        cold_us.push_back(us_since(t));
      }
    }
    for (int i = 0; i < kColdOpens; ++i) {  // cold open: nothing of the file cached, open() and one lookup
      drop(path);
      dropped.push_back(resident(path, 0, size));
      const std::string p = password();
      const auto t = Clock::now();
      const uint64_t key = breached_key(p);
      std::string error;
      auto list = BreachedFile::open(path, error, key);
      if (!list) die(error);
      hits += list->contains(key) ? 1 : 0;
      open_us.push_back(us_since(t));
    }
  }
  // The keys are no password's: a hit would be a false positive (n / 2^64).
  std::printf(
      "{\"what\":\"lookup\",\"entries\":%llu,\"file_bytes\":%llu,\"index_bytes\":%llu,\"verify_ms\":%.3f,"
      "\"warm_us\":%.3f,\"cold_us\":%.1f,\"cold_p90_us\":%.1f,\"cold_max_us\":%.1f,\"cold_n\":%zu,"
      "\"cold_open_us\":%.1f,\"cold_open_p90_us\":%.1f,\"cold_open_max_us\":%.1f,\"cold_open_n\":%zu,"
      "\"resident_after_drop\":%.4f,\"false_hits\":%llu}\n",
      static_cast<unsigned long long>(entries), static_cast<unsigned long long>(size),
      static_cast<unsigned long long>(size - index_at), median(verify_ms), median(warm_us), median(cold_us),
      quantile(cold_us, 0.9), quantile(cold_us, 1.0), cold_us.size(), median(open_us), quantile(open_us, 0.9),
      quantile(open_us, 1.0), open_us.size(), *std::max_element(dropped.begin(), dropped.end()),
      static_cast<unsigned long long>(hits));
  return 0;
}

int import(const std::string& dir, uint64_t lines, int rounds) {
  const std::string text = make_text(dir, lines);
  const std::string target = dir + "/import-out.bin";
  const double mb = static_cast<double>(fs::file_size(text)) / 1e6;
  std::vector<double> read_mbs, import_mbs, ratios, dropped, read_cpu, import_cpu;
  std::vector<char> buffer(8 << 20);
  for (int r = 0; r < rounds; ++r) {
    double read_s = 0, import_s = 0;
    for (int k = 0; k < 2; ++k) {
      const bool read_turn = (k == 0) == (r % 2 == 0);
      drop(text);
      dropped.push_back(resident(text, 0, fs::file_size(text)));
      const auto t = Clock::now();
      const double cpu = cpu_seconds();
      if (read_turn) {
        read_through(text, buffer);
        read_s = us_since(t) / 1e6;
        read_cpu.push_back(cpu_seconds() - cpu);
      } else {
        BreachedImportOptions options;
        const auto result = import_breached(text, target, options);
        import_s = us_since(t) / 1e6;
        import_cpu.push_back(cpu_seconds() - cpu);
        if (result.lines != lines) die("imported " + std::to_string(result.lines) + " lines");
      }
    }
    read_mbs.push_back(mb / read_s);
    import_mbs.push_back(mb / import_s);
    ratios.push_back(read_s / import_s);
  }
  fs::remove(target);
  std::printf(
      "{\"what\":\"import\",\"lines\":%llu,\"text_mb\":%.1f,\"read_mb_s\":%.1f,\"import_mb_s\":%.1f,"
      "\"import_ns_per_line\":%.1f,\"ratio\":%.3f,\"ratios\":[%s],\"read_mb_s_rounds\":[%s],"
      "\"import_mb_s_rounds\":[%s],\"read_cpu_s\":%.3f,\"import_cpu_s\":%.3f,\"rounds\":%d,"
      "\"resident_after_drop\":%.4f}\n",
      static_cast<unsigned long long>(lines), mb, median(read_mbs), median(import_mbs),
      mb / median(import_mbs) * 1e9 / static_cast<double>(lines), median(ratios), joined(ratios).c_str(),
      joined(read_mbs).c_str(), joined(import_mbs).c_str(), median(read_cpu), median(import_cpu), rounds,
      *std::max_element(dropped.begin(), dropped.end()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 || sodium_init() < 0) {
    std::fprintf(stderr, "usage: breached_bench lookup DIR ENTRIES ROUNDS | import DIR LINES ROUNDS\n");
    return 2;
  }
  const std::string mode = argv[1], dir = argv[2];
  const uint64_t n = std::strtoull(argv[3], nullptr, 10);
  const int rounds = std::max(1, std::atoi(argv[4]));
  fs::create_directories(dir);
  if (n == 0) die("ENTRIES/LINES must be at least 1");
  if (mode == "lookup") return lookup(dir, n, rounds);
  if (mode == "import") return import(dir, n, rounds);
  std::fprintf(stderr, "breached_bench: unknown mode %s\n", mode.c_str());
  return 2;
}
