// RFC 8291 (Message Encryption for Web Push) over RFC 8188 (aes128gcm).
// The key schedule below is written as the RFC's section 3.4 spells it, one
// HMAC per line, so it can be checked against the text by eye; HKDF-Expand
// never needs more than one block here (outputs are 32, 16 and 12 bytes).

#include "crypto/webpush.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>

#include "crypto/encoding.hpp"
#include "crypto/openssl_handles.hpp"
#include "crypto/p256.hpp"

namespace svc::crypto {
namespace {

using p256::kPointSize;
using p256::kScalarSize;
constexpr std::size_t kAuthSize = 16;
constexpr std::size_t kSaltSize = 16;
constexpr std::size_t kTagSize = 16;
constexpr std::size_t kHeaderSize = kSaltSize + 4 + 1 + kPointSize;  // 86
constexpr std::uint32_t kMinRecordSize = kTagSize + 2;               // delimiter + 1 spare

// Fixed-size secret bytes, wiped when they go out of scope.
template <std::size_t N>
struct Secret {
  std::array<unsigned char, N> bytes{};
  Secret() = default;
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  ~Secret() { OPENSSL_cleanse(bytes.data(), bytes.size()); }
  unsigned char* data() { return bytes.data(); }
  const unsigned char* data() const { return bytes.data(); }
};

// ECDH between a checked own key and a checked peer point, into `shared`.
bool shared_secret(EVP_PKEY* own, std::string_view peer_point, Secret<kScalarSize>& shared) {
  PkeyPtr peer = p256::load_public(peer_point);
  return own && peer && p256::ecdh(own, peer.get(), shared.bytes);
}

bool shared_secret(const EceKeys& own_keys, std::string_view peer_point, Secret<kScalarSize>& shared) {
  PkeyPtr own = p256::load_keypair(own_keys.private_key, own_keys.public_key);
  return own && shared_secret(own.get(), peer_point, shared);
}

bool hmac_sha256(const unsigned char* key, std::size_t key_len, std::string_view data, Secret<32>& out) {
  unsigned int len = 0;
  return HMAC(EVP_sha256(), key, static_cast<int>(key_len), byte_ptr(data), data.size(), out.data(), &len) != nullptr &&
         len == out.bytes.size();
}

struct ContentKeys {
  Secret<16> cek;
  Secret<12> nonce;
};

// RFC 8291 section 3.4, then RFC 8188 section 2.2 and 2.3.
bool derive_content_keys(const Secret<kScalarSize>& ecdh_secret, std::string_view auth_secret,
                         std::string_view ua_public, std::string_view as_public, std::string_view salt,
                         ContentKeys& out) {
  using namespace std::string_view_literals;
  Secret<32> prk_key, ikm, prk, cek_block, nonce_block;
  std::string key_info("WebPush: info\0"sv);
  key_info.append(ua_public).append(as_public).push_back('\x01');
  const std::string_view ecdh_bytes(reinterpret_cast<const char*>(ecdh_secret.data()), ecdh_secret.bytes.size());
  const std::string_view ikm_bytes(reinterpret_cast<const char*>(ikm.data()), 32);
  if (!hmac_sha256(byte_ptr(auth_secret), auth_secret.size(), ecdh_bytes, prk_key) ||
      !hmac_sha256(prk_key.data(), 32, key_info, ikm) || !hmac_sha256(byte_ptr(salt), salt.size(), ikm_bytes, prk) ||
      !hmac_sha256(prk.data(), 32, "Content-Encoding: aes128gcm\0\x01"sv, cek_block) ||
      !hmac_sha256(prk.data(), 32, "Content-Encoding: nonce\0\x01"sv, nonce_block)) {
    return false;
  }
  std::copy_n(cek_block.data(), out.cek.bytes.size(), out.cek.data());
  std::copy_n(nonce_block.data(), out.nonce.bytes.size(), out.nonce.data());
  return true;
}

// Per-record IV: the derived nonce XOR the record sequence number (RFC 8188 2.3).
void record_iv(const ContentKeys& keys, std::uint64_t seq, Secret<12>& iv) {
  iv.bytes = keys.nonce.bytes;
  for (std::size_t i = 0; i < 8; ++i) {
    iv.bytes[11 - i] = static_cast<unsigned char>(iv.bytes[11 - i] ^ ((seq >> (8 * i)) & 0xff));
  }
}

// AES-128-GCM; returns ciphertext || tag.
std::optional<std::string> gcm_seal(const ContentKeys& keys, std::uint64_t seq, std::string_view plain) {
  Secret<12> iv;
  record_iv(keys, seq, iv);
  CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  std::string out(plain.size() + kTagSize, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  int len = 0, fin = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, keys.cek.data(), iv.data()) != 1 ||
      EVP_EncryptUpdate(ctx.get(), o, &len, byte_ptr(plain), static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), o + len, &fin) != 1 || static_cast<std::size_t>(len + fin) != plain.size() ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagSize), o + plain.size()) != 1) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> gcm_open(const ContentKeys& keys, std::uint64_t seq, std::string_view sealed) {
  if (sealed.size() < kTagSize) return std::nullopt;
  Secret<12> iv;
  record_iv(keys, seq, iv);
  const std::size_t n = sealed.size() - kTagSize;
  std::array<unsigned char, kTagSize> tag{};
  std::copy_n(byte_ptr(sealed) + n, kTagSize, tag.data());
  CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  std::string out(n, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  int len = 0, fin = 0;
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, keys.cek.data(), iv.data()) != 1 ||
      EVP_DecryptUpdate(ctx.get(), o, &len, byte_ptr(sealed), static_cast<int>(n)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagSize), tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), o + len, &fin) != 1) {
    return std::nullopt;
  }
  return out;
}

void wipe(std::string& s) { OPENSSL_cleanse(s.data(), s.size()); }

}  // namespace

EceKeys generate_p256_keypair() {
  PkeyPtr key = p256::generate();
  return EceKeys{p256::private_scalar(key.get()), p256::public_point(key.get())};
}

namespace {

// encrypt_aes128gcm with the sender's key already loaded: `own` holds the
// private key whose public point is `as_public`.
std::optional<std::string> encrypt_with(std::string_view plaintext, std::string_view ua_public,
                                        std::string_view auth_secret, EVP_PKEY* own, std::string_view as_public,
                                        std::string_view salt, std::uint32_t record_size) {
  if (auth_secret.size() != kAuthSize || salt.size() != kSaltSize || record_size < kMinRecordSize ||
      plaintext.size() > kMaxPushPayload || plaintext.size() > record_size - kTagSize - 1) {
    return std::nullopt;
  }
  Secret<kScalarSize> shared;
  ContentKeys keys;
  if (!shared_secret(own, ua_public, shared) ||
      !derive_content_keys(shared, auth_secret, ua_public, as_public, salt, keys)) {
    return std::nullopt;
  }
  std::string record(plaintext);
  record.push_back('\x02');  // last (only) record delimiter, no extra padding
  auto sealed = gcm_seal(keys, 0, record);
  wipe(record);
  if (!sealed) return std::nullopt;

  std::string body;
  body.reserve(kHeaderSize + sealed->size());
  body.append(salt);
  for (int shift = 24; shift >= 0; shift -= 8) {
    body.push_back(static_cast<char>((record_size >> shift) & 0xff));
  }
  body.push_back(static_cast<char>(kPointSize));
  body.append(as_public);
  body.append(*sealed);
  return body;
}

}  // namespace

std::optional<std::string> encrypt_aes128gcm(std::string_view plaintext, std::string_view ua_public,
                                             std::string_view auth_secret, const EceKeys& as_keys,
                                             std::string_view salt, std::uint32_t record_size) {
  PkeyPtr own = p256::load_keypair(as_keys.private_key, as_keys.public_key);
  if (!own) return std::nullopt;
  return encrypt_with(plaintext, ua_public, auth_secret, own.get(), as_keys.public_key, salt, record_size);
}

// The fresh sender key goes straight from key generation into ECDH: no
// export and re-import, so no second EVP_PKEY_check of a key OpenSSL just
// made.
std::optional<std::string> encrypt_push_payload(std::string_view plaintext, std::string_view ua_public,
                                                std::string_view auth_secret) {
  if (plaintext.size() > kMaxPushPayload) return std::nullopt;
  PkeyPtr sender = p256::generate();
  const std::string sender_public = p256::public_point(sender.get());
  std::array<unsigned char, kSaltSize> salt{};
  if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1) return std::nullopt;
  return encrypt_with(plaintext, ua_public, auth_secret, sender.get(), sender_public,
                      std::string_view(reinterpret_cast<const char*>(salt.data()), salt.size()), 4096);
}

std::optional<std::string> decrypt_aes128gcm(std::string_view body, const EceKeys& ua_keys,
                                             std::string_view auth_secret) {
  if (auth_secret.size() != kAuthSize || body.size() < kHeaderSize) return std::nullopt;
  const std::string_view salt = body.substr(0, kSaltSize);
  std::uint32_t rs = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    rs = (rs << 8) | static_cast<unsigned char>(body[kSaltSize + i]);
  }
  if (rs < kMinRecordSize || static_cast<unsigned char>(body[kSaltSize + 4]) != kPointSize) {
    return std::nullopt;
  }
  const std::string_view as_public = body.substr(kSaltSize + 5, kPointSize);
  std::string_view records = body.substr(kHeaderSize);
  if (records.empty()) return std::nullopt;

  Secret<kScalarSize> shared;
  ContentKeys keys;
  if (!shared_secret(ua_keys, as_public, shared) ||
      !derive_content_keys(shared, auth_secret, ua_keys.public_key, as_public, salt, keys)) {
    return std::nullopt;
  }
  std::string plaintext;
  for (std::uint64_t seq = 0; !records.empty(); ++seq) {
    const std::string_view sealed = records.substr(0, rs);
    records.remove_prefix(sealed.size());
    auto padded = gcm_open(keys, seq, sealed);
    if (!padded) return std::nullopt;
    // Strip zero padding, then the delimiter: 0x02 ends the last record, 0x01
    // every other one.
    const std::size_t delim = padded->find_last_not_of('\0');
    const char expected = records.empty() ? '\x02' : '\x01';
    if (delim == std::string::npos || (*padded)[delim] != expected) return std::nullopt;
    plaintext.append(*padded, 0, delim);
    wipe(*padded);
  }
  return plaintext;
}

}  // namespace svc::crypto
