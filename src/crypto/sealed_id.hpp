#pragma once
// Encrypted, expiring ids ("userId" of /auth/user-email and
// /auth/user-sms-code, "customerID" of push subscriptions).
//
// Wire format (enough for another backend to mint one):
//   key        32 raw bytes (shared secret from configuration)
//   plaintext  the JSON text {"uid":N,"exp":T}; N the id, T the expiry in
//              unix seconds, both JSON integers. seal_id writes exactly that
//              (no spaces); open_id accepts any JSON object with integer
//              "uid" and "exp" and unique member names, ignoring others.
//   ad         ASCII "svc:user-id:v1" (User) or "svc:customer-id:v1"
//              (Customer), no terminating NUL
//   nonce      24 random bytes
//   ct         XChaCha20-Poly1305-IETF(key, nonce, plaintext, ad):
//              encrypted plaintext followed by the 16-byte tag
//              (libsodium crypto_aead_xchacha20poly1305_ietf_encrypt; PHP
//              sodium_crypto_aead_xchacha20poly1305_ietf_encrypt($json, $ad,
//              $nonce, $key))
//   token      base64url without '=' padding (RFC 4648 §5) of nonce || ct
//
// Pure functions; thread-safe.

#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

enum class IdPurpose { User, Customer };

// Throws std::invalid_argument unless key is exactly 32 bytes.
std::string seal_id(long long id, long long exp, IdPurpose purpose, std::string_view key);

struct OpenedId {
  long long id = 0;
  long long exp = 0;
};

// nullopt when the token is not base64url, does not decrypt and authenticate
// under this key and purpose, or does not hold the JSON above; also for a
// key that is not 32 bytes. Expiry is NOT checked here: the caller compares
// exp with its clock (the spec has a distinct "Token expired" reply).
std::optional<OpenedId> open_id(std::string_view token, IdPurpose purpose, std::string_view key);

// True when `token` is base64url of at least a nonce and a tag (and not
// absurdly long): what open_id checks before it tries the key. For saying
// why a token did not open; says nothing about whether it would.
bool has_sealed_id_shape(std::string_view token);

}  // namespace svc::crypto
