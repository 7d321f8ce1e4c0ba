#pragma once
// Password hashing and verification, including the legacy formats inherited
// from the PHP service.
//
// Passwords and stored hashes are raw bytes. No length limit is applied here;
// the login/sign-up handlers refuse passwords over 1024 bytes before calling.

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

namespace svc::crypto {

// Argon2id cost. Defaults are OWASP's (t=2, m=19 MiB, p=1).
// REQUIRES: within libsodium's crypto_pwhash_{OPS,MEM}LIMIT_{MIN,MAX}.
struct Argon2Params {
  unsigned long long opslimit = 2;
  std::size_t memlimit = 19u * 1024 * 1024;
};

struct VerifyResult {
  bool ok = false;
  // Only ever true when ok: the stored hash is a legacy format (bcrypt,
  // AES-encrypted) or Argon2id with parameters other than the configured
  // ones. The caller should store hash(password) in its place.
  bool needs_upgrade = false;
  // True when this call ran one Argon2id computation, whatever the outcome:
  // `stored` is a well-formed Argon2id hash, with the configured parameters
  // or older ones (a hash with other parameters costs what its own
  // parameters cost; a successful login re-hashes it). A caller that must
  // spend one Argon2id on every failure runs dummy_verify() after a failed
  // verify() whose full_cost is false, and only then: never two.
  bool full_cost = false;
};

// Interface so tests can count verifications (every refused login must cost
// exactly one Argon2id computation: a full-cost verify, or a dummy_verify
// after a cheaper one; see VerifyResult::full_cost).
class PasswordHasher {
 public:
  virtual ~PasswordHasher() = default;
  // Returns a "$argon2id$v=19$m=...,t=...,p=1$salt$hash" string (the format
  // of crypto_pwhash_str and PHP password_hash). Throws std::runtime_error
  // only if the hash cannot be computed (out of memory).
  virtual std::string hash(std::string_view password) = 0;
  // Never throws for any `stored` value: unrecognised, empty or corrupt
  // stored hashes simply give ok = false.
  virtual VerifyResult verify(std::string_view stored, std::string_view password) = 0;
  // For an unknown user: costs the same as verify() against an Argon2id
  // hash made with the configured params; the result is discarded.
  virtual void dummy_verify(std::string_view password) = 0;
};

// verify() recognises, by prefix:
//   "$argon2id$"               crypto_pwhash_str_verify
//   "$2y$" / "$2b$" / "$2a$"   bcrypt as PHP password_hash makes it
//                              (needs_upgrade). A password containing a NUL
//                              byte never matches: bcrypt would silently
//                              truncate at it.
//   anything else that is standard base64 (with padding) of
//   iv(16) || ciphertext(16*k, k >= 1): the legacy "encrypted" password,
//   i.e. PHP openssl_encrypt($pw, 'aes-256-cbc', $legacy_key,
//   OPENSSL_RAW_DATA, $iv) (needs_upgrade). The key is used the way PHP
//   uses it: NUL-padded or truncated to 32 bytes. An empty legacy_key
//   disables this format.
//
// Thread safety: verify/hash are safe concurrently; dummy_verify computes
// its reference hash once, under a std::once_flag.
//
// Memory: every thread that hashes or verifies keeps one Argon2 region of up
// to params.memlimit mapped between calls (crypto/argon2_arena.hpp), instead
// of libsodium mapping and faulting in a fresh one per call.
class Argon2PasswordHasher final : public PasswordHasher {
 public:
  Argon2PasswordHasher(Argon2Params params, std::string legacy_key);
  ~Argon2PasswordHasher() override;
  Argon2PasswordHasher(const Argon2PasswordHasher&) = delete;
  Argon2PasswordHasher& operator=(const Argon2PasswordHasher&) = delete;

  std::string hash(std::string_view password) override;
  VerifyResult verify(std::string_view stored, std::string_view password) override;
  void dummy_verify(std::string_view password) override;

 private:
  VerifyResult verify_argon2id(const std::string& stored, std::string_view password) const;
  bool verify_legacy_aes(std::string_view stored, std::string_view password) const;

  Argon2Params params_;
  std::string legacy_key_;  // 32 bytes after PHP's pad/truncate; wiped on exit
  std::once_flag dummy_once_;
  std::string dummy_hash_;
};

// True when `stored` is something a password can ever match: an Argon2id or
// bcrypt string, or (only when `legacy_aes_enabled`, i.e. a legacy key is
// configured) a value that may be a legacy AES ciphertext (44+ characters,
// not starting with '$'). NULL (read as ""), "", "!" or "*" are not: such an
// account can never log in, and never gets a password through a reset.
bool is_verifiable_hash(std::string_view stored, bool legacy_aes_enabled);

// base64url(first 16 bytes of HMAC-SHA256(key, stored_hash)): 22 characters.
// Put into a reset token, it stops matching once the password changes, which
// makes the token single-use without server state.
std::string password_fingerprint(std::string_view stored_hash, std::string_view key);

}  // namespace svc::crypto
