// The kept Argon2 region (crypto/argon2_arena.hpp): libsodium still goes
// through it, hashes stay interchangeable with plain libsodium and other
// implementations, and every other mmap caller is left alone.
#include "crypto/argon2_arena.hpp"

#include <sodium.h>
#include <sys/mman.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "crypto/password_hasher.hpp"

using namespace svc::crypto;

namespace {

const Argon2Params kFast{crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN};

// Made by Debian's libargon2 (the reference implementation), not libsodium:
//   argon2id_hash_encoded(2, 19456, 1, "correct horse battery staple",
//                         "svc-vector-salt!", 32 bytes)
// and accepted by PHP 8.2's password_verify.
const std::string kLibargon2Hash =
    "$argon2id$v=19$m=19456,t=2,p=1$c3ZjLXZlY3Rvci1zYWx0IQ$M1sC0uoxGatjT1s16s1bqrq9v0JDwLG115HL+YSWRso";
const std::string kLibargon2Password = "correct horse battery staple";

bool sodium_verifies(const std::string& stored, const std::string& password) {
  return crypto_pwhash_str_verify(stored.c_str(), password.data(), password.size()) == 0;
}

}  // namespace

// The `mmap` symbol libsodium calls (this build's <sys/mman.h> maps a plain
// `mmap` call to mmap64, which argon2_arena.cpp leaves alone).
extern "C" void* symbol_mmap(void* addr, std::size_t len, int prot, int flags, int fd, off_t off) noexcept
    __asm__("mmap");

namespace {

void* anon_map(std::size_t len, int flags = MAP_PRIVATE | MAP_ANONYMOUS) {
  return symbol_mmap(nullptr, len, PROT_READ | PROT_WRITE, flags, -1, 0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(argon2_arena_test)

// Every hash and verify with the configured params uses the kept region: if
// a libsodium update stops allocating through mmap, this fails (and logins
// silently get ~2x slower otherwise).
BOOST_AUTO_TEST_CASE(libsodium_allocates_through_the_kept_region) {
  Argon2PasswordHasher hasher(Argon2Params{}, "");
  const std::uint64_t before = argon2_arena_handouts();
  const std::string stored = hasher.hash("pw");
  BOOST_TEST(argon2_arena_handouts() == before + 1);
  BOOST_TEST(argon2_arena_bytes() == Argon2Params{}.memlimit);
  BOOST_TEST(hasher.verify(stored, "pw").ok);
  BOOST_TEST(!hasher.verify(stored, "pW").ok);
  hasher.dummy_verify("pw");
  BOOST_TEST(argon2_arena_handouts() >= before + 4);
  BOOST_TEST(argon2_arena_bytes() == Argon2Params{}.memlimit);
}

// The kept region may be all huge pages: it starts on a 2 MiB boundary and
// the kernel lists its mapping as eligible (/proc/self/smaps "THPeligible",
// 1 when advised MADV_HUGEPAGE under the "madvise" or "always" setting).
BOOST_AUTO_TEST_CASE(the_kept_region_is_advised_huge_pages) {
  Argon2PasswordHasher hasher(Argon2Params{}, "");
  (void)hasher.hash("pw");
  const auto base = reinterpret_cast<std::uintptr_t>(argon2_arena_address());
  BOOST_REQUIRE(base != 0);
  BOOST_TEST(base % (std::uintptr_t{2} << 20) == 0);
  std::ifstream thp_setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string setting;
  std::getline(thp_setting, setting);
  std::ifstream smaps("/proc/self/smaps");
  std::string line, eligible;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &from, &to) == 2)
      inside = from <= base && base < to;  // a mapping's line
    if (inside && line.rfind("THPeligible:", 0) == 0) eligible = line;
  }
  BOOST_TEST_MESSAGE("transparent_hugepage/enabled: " << setting << "; " << eligible);
  BOOST_REQUIRE(!eligible.empty());
  const bool thp_off = setting.find("[never]") != std::string::npos;
  BOOST_TEST(eligible.back() == (thp_off ? '0' : '1'));
}

// The region holds the previous computation's blocks when the next one
// starts: alternate right and wrong passwords and hashes of both origins.
BOOST_AUTO_TEST_CASE(hashes_interchange_with_plain_libsodium) {
  Argon2PasswordHasher hasher(Argon2Params{}, "");
  const std::string ours = hasher.hash("first password");
  std::string theirs(crypto_pwhash_STRBYTES, '\0');
  BOOST_REQUIRE(crypto_pwhash_str(theirs.data(), "second", 6, Argon2Params{}.opslimit, Argon2Params{}.memlimit) == 0);
  theirs.resize(std::strlen(theirs.c_str()));
  BOOST_TEST(ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST(sodium_verifies(ours, "first password"));
    BOOST_TEST(!sodium_verifies(ours, "first passwore"));
    BOOST_TEST(hasher.verify(theirs, "second").ok);
    BOOST_TEST(!hasher.verify(theirs, "seconD").ok);
    BOOST_TEST(hasher.verify(ours, "first password").ok);
  }
}

BOOST_AUTO_TEST_CASE(vector_from_another_implementation_verifies) {
  Argon2PasswordHasher hasher(Argon2Params{}, "");
  const VerifyResult r = hasher.verify(kLibargon2Hash, kLibargon2Password);
  BOOST_TEST(r.ok);
  BOOST_TEST(!r.needs_upgrade);
  BOOST_TEST(!hasher.verify(kLibargon2Hash, kLibargon2Password + ".").ok);
  BOOST_TEST(sodium_verifies(kLibargon2Hash, kLibargon2Password));
}

// A stored hash asking for more memory than configured gets libsodium's own
// mapping, not a region grown to its m.
BOOST_AUTO_TEST_CASE(larger_stored_m_bypasses_the_region) {
  Argon2PasswordHasher small(kFast, "");
  const std::uint64_t before = argon2_arena_handouts();
  const VerifyResult r = small.verify(kLibargon2Hash, kLibargon2Password);
  BOOST_TEST(r.ok);
  BOOST_TEST(r.needs_upgrade);
  BOOST_TEST(argon2_arena_handouts() == before);
}

BOOST_AUTO_TEST_CASE(other_mappings_are_untouched) {
  constexpr std::size_t kLen = 1 << 20;
  void* outside = anon_map(kLen);
  BOOST_REQUIRE(outside != MAP_FAILED);
  {
    const Argon2ArenaScope scope(kLen);
    void* shared = anon_map(kLen, MAP_SHARED | MAP_ANONYMOUS);  // not libsodium's form
    void* first = anon_map(kLen);                               // the one handout
    void* second = anon_map(kLen);                              // only one per scope
    void* other_thread = MAP_FAILED;
    std::thread([&] { other_thread = anon_map(kLen); }).join();
    BOOST_REQUIRE(shared != MAP_FAILED);
    BOOST_REQUIRE(second != MAP_FAILED);
    BOOST_REQUIRE(other_thread != MAP_FAILED);
    BOOST_TEST(first != second);
    BOOST_TEST(first != shared);
    BOOST_TEST(first != other_thread);
    BOOST_TEST(first != outside);
    static_cast<char*>(first)[0] = 1;
    BOOST_TEST(munmap(second, kLen) == 0);
    BOOST_TEST(munmap(shared, kLen) == 0);
    BOOST_TEST(munmap(other_thread, kLen) == 0);
    BOOST_TEST(munmap(first, kLen) == 0);  // kept, not unmapped
  }
  BOOST_TEST(argon2_arena_bytes() >= kLen);
  void* after = anon_map(kLen);  // no scope: the kernel's mapping
  BOOST_REQUIRE(after != MAP_FAILED);
  std::memset(after, 7, kLen);
  BOOST_TEST(munmap(after, kLen) == 0);
  BOOST_TEST(munmap(outside, kLen) == 0);
  BOOST_TEST(munmap(nullptr, 0) == -1);  // errors still come from the kernel
}

BOOST_AUTO_TEST_SUITE_END()
