#pragma once
// Keeps libsodium's Argon2 working memory mapped from one hash to the next.
//
// libsodium 1.0.18 (argon2-core.c, allocate_memory/free_memory) mmaps a fresh
// region for every Argon2 computation (Debian's build with MAP_POPULATE) and
// munmaps it afterwards: with m = 19 MiB that is ~4,900 page faults per
// verify, which cost more than the Argon2 arithmetic itself on this machine
// (docs/benchmarks-history.md, "Argon2id per-verify times"). libsodium takes no allocator, so argon2_arena.cpp
// defines mmap and munmap for the whole program (libsodium's calls bind to an
// executable's definitions). They pass every call straight to the kernel,
// with one exception: while the calling thread holds an Argon2ArenaScope, the
// FIRST call of the form
//   mmap(NULL, len, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS
//        [|MAP_POPULATE], -1, 0)
// with len <= the scope's capacity gets this thread's kept region (mapped,
// or grown up to capacity, on first use), and the munmap of exactly that
// address is a no-op. Larger requests, other threads, other flags and every
// call outside a scope behave exactly as without this file. If a future
// libsodium stops calling mmap, nothing breaks: hashes just get slower again
// (argon2_arena_handouts() stays 0; a unit test watches for that).
//
// Memory: one region of up to `capacity` bytes per thread that ever hashed,
// released when the thread exits. It is excluded from core dumps and holds
// the last computation's blocks until the next one overwrites them (the same
// data a freed mapping leaves in physical memory today).

#include <cstddef>
#include <cstdint>

namespace svc::crypto {

// Arms the calling thread for ONE libsodium crypto_pwhash* call (see above).
// REQUIRES: not nested on the same thread.
class Argon2ArenaScope {
 public:
  explicit Argon2ArenaScope(std::size_t capacity) noexcept;
  ~Argon2ArenaScope();
  Argon2ArenaScope(const Argon2ArenaScope&) = delete;
  Argon2ArenaScope& operator=(const Argon2ArenaScope&) = delete;
};

// Times this thread's kept region was handed to libsodium.
std::uint64_t argon2_arena_handouts() noexcept;

// Bytes this thread keeps mapped (0 before its first hash).
std::size_t argon2_arena_bytes() noexcept;

// Where this thread's kept region starts (null before its first hash): on a
// 2 MiB boundary, advised MADV_HUGEPAGE.
const void* argon2_arena_address() noexcept;

}  // namespace svc::crypto
