#include "crypto/encoding.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <sodium.h>

#include <memory>

namespace svc::crypto {
namespace {

// Base64 of both RFC 4648 alphabets, written out rather than through
// libsodium's sodium_bin2base64/sodium_base642bin: those call a function per
// character and made up about a tenth of a refresh-token's instructions (two
// JWTs signed, one verified). Like libsodium's, the mapping is arithmetic,
// with no table indexed by the data and no branch on it, so a token's bytes
// do not show in cache or branch timing.
struct Alphabet {
  int c62, c63;  // the characters of the values 62 and 63
  bool padded;   // '=' padding required (RFC 4648 §4) or refused (§5 as JWTs use it)
};
constexpr Alphabet kStandard{'+', '/', true};
constexpr Alphabet kUrlSafe{'-', '_', false};

// 1 when a < b, else 0, without a branch (a, b in 0..255).
inline int below(int a, int b) { return static_cast<int>(static_cast<unsigned>(a - b) >> 31); }

// 1 when a == b, else 0, without a branch (a, b in 0..255).
inline int same(int a, int b) { return below((a ^ b) - 1, 0); }

inline char to_char(int v, const Alphabet& a) {
  return static_cast<char>('A' + v + (-below(25, v) & 6) - (-below(51, v) & 75) + (-below(61, v) & (a.c62 - 58)) +
                           (-below(62, v) & (a.c63 - a.c62 - 1)));
}

// The 6-bit value of `c`, or a value with bit 8 set when `c` is not in the
// alphabet.
inline int from_char(int c, const Alphabet& a) {
  const int upper = below('A' - 1, c) & below(c, 'Z' + 1);
  const int lower = below('a' - 1, c) & below(c, 'z' + 1);
  const int digit = below('0' - 1, c) & below(c, '9' + 1);
  const int is62 = same(c, a.c62);
  const int is63 = same(c, a.c63);
  const int value =
      (-upper & (c - 'A')) | (-lower & (c - 'a' + 26)) | (-digit & (c - '0' + 52)) | (-is62 & 62) | (-is63 & 63);
  return value | ((1 - (upper | lower | digit | is62 | is63)) << 8);
}

std::string encode(std::string_view bytes, const Alphabet& a) {
  const auto* in = byte_ptr(bytes);
  const std::size_t n = bytes.size(), whole = n / 3 * 3;
  std::string out;
  out.resize(a.padded ? (n + 2) / 3 * 4 : n / 3 * 4 + (n % 3 == 0 ? 0 : n % 3 + 1));
  char* o = out.data();
  for (std::size_t i = 0; i < whole; i += 3) {
    const unsigned w = unsigned{in[i]} << 16 | unsigned{in[i + 1]} << 8 | in[i + 2];
    *o++ = to_char(static_cast<int>(w >> 18), a);
    *o++ = to_char(static_cast<int>(w >> 12 & 63), a);
    *o++ = to_char(static_cast<int>(w >> 6 & 63), a);
    *o++ = to_char(static_cast<int>(w & 63), a);
  }
  if (const std::size_t rest = n - whole; rest > 0) {
    const unsigned w = unsigned{in[whole]} << 16 | (rest == 2 ? unsigned{in[whole + 1]} << 8 : 0u);
    *o++ = to_char(static_cast<int>(w >> 18), a);
    *o++ = to_char(static_cast<int>(w >> 12 & 63), a);
    if (rest == 2) *o++ = to_char(static_cast<int>(w >> 6 & 63), a);
    if (a.padded) {
      if (rest == 1) *o++ = '=';
      *o++ = '=';
    }
  }
  return out;
}

// Strict: only the alphabet, padding exactly where kStandard needs it and
// never in kUrlSafe, no impossible length, and zero unused trailing bits (so
// every byte string has one encoding). Only the length and the padding,
// which are public, decide branches.
std::optional<std::string> decode(std::string_view text, const Alphabet& a) {
  std::size_t chars = text.size();
  if (a.padded) {
    if (chars % 4 != 0) return std::nullopt;
    if (chars > 0 && text[chars - 1] == '=') --chars;
    if (chars > 0 && text[chars - 1] == '=' && chars % 4 == 3) --chars;
  }
  if (chars % 4 == 1) return std::nullopt;
  std::string out(chars / 4 * 3 + (chars % 4 == 0 ? 0 : chars % 4 - 1), '\0');
  const auto* in = byte_ptr(text);
  char* o = out.data();
  int bad = 0;
  std::size_t i = 0;
  for (; i + 4 <= chars; i += 4) {
    const int v0 = from_char(in[i], a), v1 = from_char(in[i + 1], a), v2 = from_char(in[i + 2], a),
              v3 = from_char(in[i + 3], a);
    bad |= v0 | v1 | v2 | v3;
    const unsigned w = static_cast<unsigned>((v0 & 63) << 18 | (v1 & 63) << 12 | (v2 & 63) << 6 | (v3 & 63));
    *o++ = static_cast<char>(w >> 16);
    *o++ = static_cast<char>(w >> 8);
    *o++ = static_cast<char>(w);
  }
  if (const std::size_t rest = chars - i; rest > 0) {  // 2 or 3 characters: 1 or 2 bytes
    const int v0 = from_char(in[i], a), v1 = from_char(in[i + 1], a), v2 = rest == 3 ? from_char(in[i + 2], a) : 0;
    bad |= v0 | v1 | v2;
    const unsigned w = static_cast<unsigned>((v0 & 63) << 18 | (v1 & 63) << 12 | (v2 & 63) << 6);
    *o++ = static_cast<char>(w >> 16);
    if (rest == 3) *o++ = static_cast<char>(w >> 8);
    bad |= static_cast<int>(rest == 3 ? w & 0xff : w & 0xffff) << 8;  // unused bits must be zero
  }
  if ((bad >> 8) != 0) return std::nullopt;
  return out;
}

// HMAC-SHA256 through OpenSSL, whose SHA-256 uses the CPU's SHA extensions
// where there are some (about a third of libsodium's portable code's time per
// MAC on the bench box), restarting each MAC in one context per thread keyed
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
  // Initialising with no key starts over from the padded key already hashed
  // (HMAC's kept inner state), without copying or allocating a context.
  std::string mac(32, '\0');
  std::size_t written = 0;
  EVP_MAC_CTX* ctx = keyed.ctx.get();
  if (EVP_MAC_init(ctx, nullptr, 0, nullptr) != 1 || EVP_MAC_update(ctx, byte_ptr(message), message.size()) != 1 ||
      EVP_MAC_final(ctx, reinterpret_cast<unsigned char*>(mac.data()), &written, mac.size()) != 1 ||
      written != mac.size()) {
    keyed.ctx.reset();  // in an unknown state now: keyed afresh next time
    return std::nullopt;
  }
  return mac;
}

}  // namespace

std::string base64url_encode(std::string_view bytes) { return encode(bytes, kUrlSafe); }

std::optional<std::string> base64url_decode(std::string_view text) { return decode(text, kUrlSafe); }

std::string base64_encode(std::string_view bytes) { return encode(bytes, kStandard); }

std::optional<std::string> base64_decode(std::string_view text) { return decode(text, kStandard); }

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
