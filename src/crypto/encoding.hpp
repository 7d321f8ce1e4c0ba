#pragma once
// Byte encodings and small primitives shared by the crypto layer.
//
// All functions treat std::string / std::string_view as raw bytes (they may
// contain NUL). Nothing here keeps state; every function is safe to call from
// any thread once sodium_init() has run (the program does it at start-up).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

// RFC 4648 §5 alphabet ('-', '_'), no '=' padding.
std::string base64url_encode(std::string_view bytes);
// Strict inverse of base64url_encode: nullopt on padding, whitespace, any
// character outside the URL-safe alphabet, an impossible length, or non-zero
// unused trailing bits. "" decodes to "".
std::optional<std::string> base64url_decode(std::string_view text);

// RFC 4648 §4 alphabet ('+', '/') with '=' padding.
std::string base64_encode(std::string_view bytes);
// Strict: the padding must be present; nullopt on anything invalid.
std::optional<std::string> base64_decode(std::string_view text);

// Lower-case hex.
std::string hex_encode(std::string_view bytes);

// Compares contents in time that depends only on the lengths. Different
// lengths return false without looking at the contents (lengths of MACs and
// hashes are public).
bool constant_time_equal(std::string_view a, std::string_view b);

// HMAC-SHA256 (RFC 2104) with a key of any length; returns the raw 32 bytes.
// The one function here with state: each thread keeps an OpenSSL context
// keyed with the last key it saw (and a copy of that key, wiped when
// replaced), so repeated MACs with one key skip hashing the padded key.
std::string hmac_sha256(std::string_view key, std::string_view message);

// SHA-256 of `bytes`: the raw 32 bytes.
std::string sha256(std::string_view bytes);

// n bytes from the OS CSPRNG (libsodium randombytes_buf).
std::string random_bytes(std::size_t n);

// The bytes of `s` as the unsigned char pointer C crypto APIs take.
inline const unsigned char* byte_ptr(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

}  // namespace svc::crypto
