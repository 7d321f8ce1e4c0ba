#pragma once
// Web Push message encryption: RFC 8291 on top of the "aes128gcm" content
// coding of RFC 8188, with P-256 keys in raw form.
//
// All keys and secrets are raw bytes in std::string (no base64): a private key
// is the 32-byte big-endian scalar, a public key the 65-byte uncompressed point
// (0x04 || X || Y). Callers decode what they keep in the database.
//
// Thread/fork safety: every function is reentrant; no global state beyond
// OpenSSL's own (safe after fork).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

// A P-256 key pair in raw form: private 32 bytes, public 65 bytes.
struct EceKeys {
  std::string private_key;
  std::string public_key;
};

// Largest plaintext a push message carries: a 4096-byte body (what push
// services accept) minus the 86-byte header, the padding delimiter and the tag.
inline constexpr std::size_t kMaxPushPayload = 3993;

// A fresh random P-256 key pair. Throws std::runtime_error only if OpenSSL
// cannot generate a key (out of memory, broken RNG).
EceKeys generate_p256_keypair();

// The whole aes128gcm body for one push message:
//   salt(16) || rs(4, big-endian) || idlen(1)=65 || as_keys.public_key(65)
//   || one record = AES-128-GCM(plaintext || 0x02) || tag(16)
// ua_public is the subscription's p256dh (65 bytes), auth_secret its auth
// (16 bytes); as_keys is the sender's (application server's) key pair.
// Returns nullopt when a key or secret has the wrong size or is not a valid
// P-256 key (or as_keys' halves do not match), salt is not 16 bytes,
// record_size < 18, or plaintext is longer than
// min(record_size - 17, kMaxPushPayload). Deterministic: same inputs, same
// bytes (that is what makes the RFC 8291 example testable).
std::optional<std::string> encrypt_aes128gcm(std::string_view plaintext, std::string_view ua_public,
                                             std::string_view auth_secret, const EceKeys& as_keys,
                                             std::string_view salt, std::uint32_t record_size = 4096);

// encrypt_aes128gcm with a fresh sender key pair and a random salt, as every
// push message requires. Same nullopt cases (bad subscription keys, payload
// larger than kMaxPushPayload).
std::optional<std::string> encrypt_push_payload(std::string_view plaintext, std::string_view ua_public,
                                                std::string_view auth_secret);

// The receiving side (what a browser does), for tests and interop checks:
// decrypts an aes128gcm body addressed to ua_keys with the subscription's
// auth_secret. Accepts several records. Returns nullopt for any malformed
// header, a key id that is not a 65-byte P-256 point, a failed tag check or
// bad padding.
std::optional<std::string> decrypt_aes128gcm(std::string_view body, const EceKeys& ua_keys,
                                             std::string_view auth_secret);

}  // namespace svc::crypto
