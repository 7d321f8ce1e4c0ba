#include "crypto/encoding.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <sodium.h>

#include <memory>

namespace svc::crypto {
namespace {

std::string encode(std::string_view bytes, int variant) {
  // sodium_base64_ENCODED_LEN counts the trailing NUL that bin2base64 writes.
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), byte_ptr(bytes), bytes.size(), variant);
  out.resize(out.size() - 1);
  return out;
}

std::optional<std::string> decode(std::string_view text, int variant) {
  // Every 4 characters carry at most 3 bytes, so this bound is never short.
  std::string out(text.size() / 4 * 3 + 3, '\0');
  std::size_t written = 0;
  // ignore = nullptr and b64_end = nullptr make libsodium reject any
  // character it cannot consume, including stray '=' in the no-padding
  // variant and non-zero leftover bits (non-canonical encodings).
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(), text.size(), nullptr,
                        &written, nullptr, variant) != 0) {
    return std::nullopt;
  }
  out.resize(written);
  return out;
}

// HMAC-SHA256 through OpenSSL, whose SHA-256 uses the CPU's SHA extensions
// where there are some (about a third of libsodium's portable code's time per
// MAC on the bench box), starting each MAC from a copy of a context keyed
// once: a worker signs and verifies with one JWT key, so the padded key is
// hashed once per thread instead of twice per MAC. nullopt when OpenSSL
// fails, and for an empty key (OpenSSL reads a NULL key as "keep the old
// one"); the caller then uses libsodium.
struct MacCtxFree {
  void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
};
using MacCtx = std::unique_ptr<EVP_MAC_CTX, MacCtxFree>;

struct KeyedMac {
  std::string key;
  MacCtx ctx;
  ~KeyedMac() { sodium_memzero(key.data(), key.size()); }
};

MacCtx keyed_context(std::string_view key) {
  static EVP_MAC* const hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);  // for the process's lifetime
  if (!hmac) return nullptr;
  MacCtx ctx(EVP_MAC_CTX_new(hmac));
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  if (!ctx || EVP_MAC_init(ctx.get(), byte_ptr(key), key.size(), params) != 1) return nullptr;
  return ctx;
}

std::optional<std::string> openssl_hmac_sha256(std::string_view key, std::string_view message) {
  if (key.empty()) return std::nullopt;
  thread_local KeyedMac keyed;
  if (!keyed.ctx || !constant_time_equal(keyed.key, key)) {
    sodium_memzero(keyed.key.data(), keyed.key.size());
    keyed.key.assign(key);
    keyed.ctx = keyed_context(key);
    if (!keyed.ctx) return std::nullopt;
  }
  MacCtx ctx(EVP_MAC_CTX_dup(keyed.ctx.get()));
  std::string mac(32, '\0');
  std::size_t written = 0;
  if (!ctx || EVP_MAC_update(ctx.get(), byte_ptr(message), message.size()) != 1 ||
      EVP_MAC_final(ctx.get(), reinterpret_cast<unsigned char*>(mac.data()), &written, mac.size()) != 1 ||
      written != mac.size()) {
    return std::nullopt;
  }
  return mac;
}

}  // namespace

std::string base64url_encode(std::string_view bytes) { return encode(bytes, sodium_base64_VARIANT_URLSAFE_NO_PADDING); }

std::optional<std::string> base64url_decode(std::string_view text) {
  return decode(text, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

std::string base64_encode(std::string_view bytes) { return encode(bytes, sodium_base64_VARIANT_ORIGINAL); }

std::optional<std::string> base64_decode(std::string_view text) { return decode(text, sodium_base64_VARIANT_ORIGINAL); }

std::string hex_encode(std::string_view bytes) {
  std::string out(bytes.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), byte_ptr(bytes), bytes.size());
  out.resize(out.size() - 1);
  return out;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string sha256(std::string_view bytes) {
  std::string out(crypto_hash_sha256_BYTES, '\0');
  crypto_hash_sha256(reinterpret_cast<unsigned char*>(out.data()), byte_ptr(bytes), bytes.size());
  return out;
}

std::string hmac_sha256(std::string_view key, std::string_view message) {
  if (auto mac = openssl_hmac_sha256(key, message)) return *mac;
  // The init/update/final API accepts any key length (longer than the block
  // size is hashed first, per RFC 2104); crypto_auth_hmacsha256() itself
  // insists on a 32-byte key.
  static const unsigned char kNoByte = 0;
  const auto* key_ptr = key.empty() ? &kNoByte : byte_ptr(key);
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, key_ptr, key.size());
  crypto_auth_hmacsha256_update(&state, byte_ptr(message), message.size());
  std::string mac(crypto_auth_hmacsha256_BYTES, '\0');
  crypto_auth_hmacsha256_final(&state, reinterpret_cast<unsigned char*>(mac.data()));
  // The state holds key-derived pads.
  sodium_memzero(&state, sizeof state);
  return mac;
}

std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  randombytes_buf(out.data(), n);
  return out;
}

}  // namespace svc::crypto
