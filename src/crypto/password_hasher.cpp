#include "crypto/password_hasher.hpp"

#include <crypt.h>
#include <openssl/evp.h>
#include <sodium.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "crypto/argon2_arena.hpp"
#include "crypto/encoding.hpp"
#include "crypto/openssl_handles.hpp"

namespace svc::crypto {
namespace {

constexpr std::string_view kArgon2idPrefix = "$argon2id$";
constexpr std::size_t kAesKeyBytes = 32;
constexpr std::size_t kAesBlockBytes = 16;

// Wipes a buffer that held a secret when the scope ends, however it ends.
class WipeGuard {
 public:
  explicit WipeGuard(std::string& secret) : secret_(secret) {}
  ~WipeGuard() { sodium_memzero(secret_.data(), secret_.size()); }
  WipeGuard(const WipeGuard&) = delete;
  WipeGuard& operator=(const WipeGuard&) = delete;

 private:
  std::string& secret_;
};

// libsodium and libxcrypt want pointers, and a default string_view may hold
// nullptr; an empty password is still a valid input.
const char* data_or_empty(std::string_view s) { return s.empty() ? "" : s.data(); }

bool has_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

bool is_bcrypt(std::string_view stored) {
  return stored.starts_with("$2y$") || stored.starts_with("$2b$") || stored.starts_with("$2a$");
}

bool bcrypt_verify(std::string_view stored, std::string_view password) {
  // crypt_r reads C strings: an embedded NUL would silently truncate the
  // password (or the setting), so such inputs never match.
  if (has_nul(stored) || has_nul(password)) return false;
  std::string setting(stored);
  std::string pw(password);
  WipeGuard wipe_pw(pw);
  // struct crypt_data is ~32 KiB: heap, zeroed as crypt_r requires.
  auto data = std::make_unique<crypt_data>();
  const char* out = crypt_r(pw.c_str(), setting.c_str(), data.get());
  // libxcrypt signals failure with NULL or a "*0"/"*1" token, neither of
  // which can equal a "$2" string, but check explicitly anyway.
  const bool ok = out != nullptr && out[0] != '*' && constant_time_equal(out, stored);
  sodium_memzero(data.get(), sizeof(crypt_data));
  return ok;
}

// AES-256-CBC with PKCS#7 padding; nullopt if OpenSSL rejects the padding.
std::optional<std::string> aes256cbc_decrypt(std::string_view key, std::string_view iv, std::string_view ciphertext) {
  CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return std::nullopt;
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_cbc(), nullptr, byte_ptr(key), byte_ptr(iv)) != 1) {
    return std::nullopt;
  }
  std::string plain(ciphertext.size() + kAesBlockBytes, '\0');
  int len = 0;
  int final_len = 0;
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  const bool ok =
      EVP_DecryptUpdate(ctx.get(), out, &len, byte_ptr(ciphertext), static_cast<int>(ciphertext.size())) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), out + len, &final_len) == 1;
  if (!ok) {
    sodium_memzero(plain.data(), plain.size());
    return std::nullopt;
  }
  plain.resize(static_cast<std::size_t>(len + final_len));
  return plain;
}

// PHP's openssl_encrypt pads a short key with NUL bytes and truncates a long
// one; reproduce that so existing ciphertexts decrypt.
std::string php_aes256_key(std::string key) {
  if (key.size() > kAesKeyBytes) {
    sodium_memzero(key.data() + kAesKeyBytes, key.size() - kAesKeyBytes);
  }
  key.resize(kAesKeyBytes, '\0');
  return key;
}

}  // namespace

Argon2PasswordHasher::Argon2PasswordHasher(Argon2Params params, std::string legacy_key) : params_(params) {
  if (!legacy_key.empty()) legacy_key_ = php_aes256_key(std::move(legacy_key));
  sodium_memzero(legacy_key.data(), legacy_key.size());
}

Argon2PasswordHasher::~Argon2PasswordHasher() { sodium_memzero(legacy_key_.data(), legacy_key_.size()); }

std::string Argon2PasswordHasher::hash(std::string_view password) {
  std::string out(crypto_pwhash_STRBYTES, '\0');
  const Argon2ArenaScope arena(params_.memlimit);
  if (crypto_pwhash_str(out.data(), data_or_empty(password), password.size(), params_.opslimit, params_.memlimit) !=
      0) {
    throw std::runtime_error("crypto_pwhash_str failed (out of memory?)");
  }
  out.resize(out.find('\0'));
  return out;
}

VerifyResult Argon2PasswordHasher::verify(std::string_view stored, std::string_view password) {
  if (stored.starts_with(kArgon2idPrefix)) {
    return verify_argon2id(std::string(stored), password);
  }
  if (is_bcrypt(stored)) {
    const bool ok = bcrypt_verify(stored, password);
    return {ok, ok, false};
  }
  const bool ok = verify_legacy_aes(stored, password);
  return {ok, ok, false};
}

void Argon2PasswordHasher::dummy_verify(std::string_view password) {
  // The reference hash is of a random password nobody knows, made with the
  // configured params so its cost matches a real, up-to-date user's verify.
  std::call_once(dummy_once_, [this] {
    std::string secret = base64url_encode(random_bytes(32));
    dummy_hash_ = hash(secret);
    sodium_memzero(secret.data(), secret.size());
  });
  (void)verify_argon2id(dummy_hash_, password);
}

VerifyResult Argon2PasswordHasher::verify_argon2id(const std::string& stored, std::string_view password) const {
  // libsodium reads the stored hash as a C string of at most STRBYTES.
  if (stored.size() >= crypto_pwhash_STRBYTES || has_nul(stored)) return {};
  int rc = 0;
  {
    // A stored hash with a larger m than configured gets a plain mapping.
    const Argon2ArenaScope arena(params_.memlimit);
    rc = crypto_pwhash_str_verify(stored.c_str(), data_or_empty(password), password.size());
  }
  // needs_rehash: 0 = configured parameters, 1 = other ones, -1 = not a
  // string libsodium could parse (then no Argon2id ran at all). A parsed hash
  // cost one Argon2id computation whatever its parameters, so a failure adds
  // no dummy on top (docs/decisions.md, issue 22 "hash timing").
  const int rehash = crypto_pwhash_str_needs_rehash(stored.c_str(), params_.opslimit, params_.memlimit);
  if (rc != 0) return {false, false, rehash >= 0};
  return {true, rehash != 0, true};
}

bool Argon2PasswordHasher::verify_legacy_aes(std::string_view stored, std::string_view password) const {
  if (legacy_key_.empty()) return false;
  const std::optional<std::string> raw = base64_decode(stored);
  // iv(16) followed by at least one whole cipher block.
  if (!raw || raw->size() < 2 * kAesBlockBytes || raw->size() % kAesBlockBytes != 0) {
    return false;
  }
  const std::string_view bytes(*raw);
  std::optional<std::string> plain =
      aes256cbc_decrypt(legacy_key_, bytes.substr(0, kAesBlockBytes), bytes.substr(kAesBlockBytes));
  if (!plain) return false;
  WipeGuard wipe_plain(*plain);
  return constant_time_equal(*plain, password);
}

bool is_verifiable_hash(std::string_view stored, bool legacy_aes_enabled) {
  if (stored.starts_with(kArgon2idPrefix) || is_bcrypt(stored)) return true;
  return legacy_aes_enabled && stored.size() >= 44 && stored[0] != '$';
}

std::string password_fingerprint(std::string_view stored_hash, std::string_view key) {
  std::string mac = hmac_sha256(key, stored_hash);
  return base64url_encode(std::string_view(mac).substr(0, 16));
}

}  // namespace svc::crypto
