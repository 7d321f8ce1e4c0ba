#pragma once
// Time-based one-time passwords as RFC 6238 defines them for authenticator
// apps: HMAC-SHA-1 (RFC 4226 dynamic truncation), 6 digits, 30-second time
// steps counted from the unix epoch. Pure code: no clock, no database.

#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

inline constexpr int kTotpDigits = 6;
inline constexpr long long kTotpPeriod = 30;
inline constexpr std::size_t kTotpSecretBytes = 20;  // 160 bits, RFC 4226's recommendation

// The time step of unix time `now` (floor(now / 30)); negative times give step 0.
long long totp_step(long long now);

// The 6-digit code (zero-padded) of `secret` (raw bytes) at time step `step`.
std::string totp_code(std::string_view secret, long long step);

// RFC 4648 base32 (A-Z2-7) without padding, as otpauth:// URLs carry secrets.
std::string base32_encode(std::string_view bytes);
// The inverse; accepts lower case and ignores spaces and '=' padding;
// nullopt for any other character.
std::optional<std::string> base32_decode(std::string_view text);

// The TOTP secret sealed for storage with `key` ([keys] mfa_key, 32 bytes):
// XChaCha20-Poly1305, `owner` (auth table and user id) as associated data so a
// sealed secret cannot be moved to another user's row.
std::string seal_totp_secret(std::string_view secret, std::string_view key, std::string_view owner);
// The inverse; nullopt when key, owner or bytes do not match.
std::optional<std::string> open_totp_secret(std::string_view sealed, std::string_view key, std::string_view owner);

}  // namespace svc::crypto
