#include "crypto/argon2_arena.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace svc::crypto {
namespace {

// Plain data, constant-initialised: mmap below may run on any thread at any
// time (before main, inside other libraries), so it must never trigger a
// thread_local's lazy construction.
struct ArenaState {
  void* base = nullptr;
  std::size_t len = 0;       // bytes usable at base
  void* map_base = nullptr;  // the whole mapping (base rounded up inside it)
  std::size_t map_len = 0;
  std::size_t capacity = 0;  // > 0 while a scope is armed
  bool armed = false;        // a scope is open and has not handed out yet
  bool in_use = false;       // handed to libsodium, not yet munmapped
  std::uint64_t handouts = 0;
};
constinit thread_local ArenaState t_arena{};

void* kernel_mmap(void* addr, std::size_t len, int prot, int flags, int fd, off_t off) {
  return reinterpret_cast<void*>(syscall(SYS_mmap, addr, len, prot, flags, fd, off));
}

int kernel_munmap(void* addr, std::size_t len) { return static_cast<int>(syscall(SYS_munmap, addr, len)); }

// Unmaps the kept region when its thread exits. Touched only from
// Argon2ArenaScope (ordinary code), never from mmap.
struct ArenaReleaser {
  ~ArenaReleaser() {
    if (t_arena.base != nullptr && !t_arena.in_use) kernel_munmap(t_arena.map_base, t_arena.map_len);
    t_arena.base = t_arena.map_base = nullptr;
    t_arena.len = t_arena.map_len = 0;
  }
};
thread_local ArenaReleaser t_releaser;

bool is_arena_request(const ArenaState& a, void* addr, std::size_t len, int prot, int flags, int fd, off_t off) {
  return a.armed && !a.in_use && addr == nullptr && len > 0 && len <= a.capacity && prot == (PROT_READ | PROT_WRITE) &&
         (flags & ~MAP_POPULATE) == (MAP_PRIVATE | MAP_ANONYMOUS) && fd == -1 && off == 0;
}

// Maps (or regrows) the kept region to the armed capacity; false if the
// kernel refuses, in which case the caller falls back to a plain mapping.
bool ensure_region(ArenaState& a, std::size_t len) {
  if (a.base != nullptr && a.len >= len) return true;
  if (a.base != nullptr) kernel_munmap(a.map_base, a.map_len);
  a.base = a.map_base = nullptr;
  a.len = a.map_len = 0;
  // Faulted in by the first hash, then kept, on 2 MiB pages where the
  // kernel has them (transparent huge pages, "madvise" mode): Argon2id reads
  // its 19 MiB at random, and 4 KiB pages miss the TLB on most of those reads.
  // The region starts on a 2 MiB boundary so every part of it can be a huge
  // page; the mapping is 2 MiB longer for that.
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t map_len = a.capacity + kHuge;
  void* p = kernel_mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const auto aligned = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  void* base = reinterpret_cast<void*>(aligned);
  // Advice only: a failure changes the page size or the size of a core dump.
  (void)madvise(base, a.capacity, MADV_HUGEPAGE);
  (void)madvise(p, map_len, MADV_DONTDUMP);
  a.map_base = p;
  a.map_len = map_len;
  a.base = base;
  a.len = a.capacity;
  return true;
}

}  // namespace

Argon2ArenaScope::Argon2ArenaScope(std::size_t capacity) noexcept {
  (void)&t_releaser;  // odr-use: registers the thread-exit release
  t_arena.capacity = capacity;
  t_arena.armed = capacity > 0;
}

Argon2ArenaScope::~Argon2ArenaScope() {
  t_arena.armed = false;
  t_arena.capacity = 0;
}

std::uint64_t argon2_arena_handouts() noexcept { return t_arena.handouts; }

std::size_t argon2_arena_bytes() noexcept { return t_arena.len; }

const void* argon2_arena_address() noexcept { return t_arena.base; }

}  // namespace svc::crypto

// The program-wide definitions described in argon2_arena.hpp. Every call
// that is not libsodium's Argon2 allocation inside a scope reaches the kernel
// with its arguments unchanged (the syscall sets errno as glibc's wrapper
// would). The symbol is spelled out because this build's
// _FILE_OFFSET_BITS=64 makes <sys/mman.h> rename a plain `mmap` to mmap64,
// while libsodium calls `mmap`.
extern "C" void* svc_interposed_mmap(void* addr, std::size_t len, int prot, int flags, int fd, off_t off) noexcept
    __asm__("mmap");
extern "C" void* svc_interposed_mmap(void* addr, std::size_t len, int prot, int flags, int fd, off_t off) noexcept {
  using svc::crypto::t_arena;
  if (svc::crypto::is_arena_request(t_arena, addr, len, prot, flags, fd, off) &&
      svc::crypto::ensure_region(t_arena, len)) {
    t_arena.armed = false;
    t_arena.in_use = true;
    ++t_arena.handouts;
    return t_arena.base;
  }
  return svc::crypto::kernel_mmap(addr, len, prot, flags, fd, off);
}

extern "C" int munmap(void* addr, std::size_t len) noexcept {
  using svc::crypto::t_arena;
  if (t_arena.in_use && addr == t_arena.base && len <= t_arena.len) {
    t_arena.in_use = false;
    return 0;
  }
  return svc::crypto::kernel_munmap(addr, len);
}
