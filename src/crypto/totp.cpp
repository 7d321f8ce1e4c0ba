#include "crypto/totp.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "crypto/signing_key.hpp"

namespace svc::crypto {
namespace {

constexpr std::string_view kBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

}  // namespace

long long totp_step(long long now) { return now < 0 ? 0 : now / kTotpPeriod; }

std::string totp_code(std::string_view secret, long long step) {
  std::array<unsigned char, 8> counter{};
  auto value = static_cast<std::uint64_t>(step);
  for (int i = 7; i >= 0; --i) {
    counter[static_cast<std::size_t>(i)] = static_cast<unsigned char>(value & 0xff);
    value >>= 8;
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int mac_len = 0;
  if (!HMAC(EVP_sha1(), secret.data(), static_cast<int>(secret.size()), counter.data(), counter.size(), mac.data(),
            &mac_len) ||
      mac_len != 20) {
    throw std::runtime_error("totp_code: HMAC-SHA-1 failed");
  }
  // RFC 4226 section 5.3: dynamic truncation.
  const unsigned offset = mac[19] & 0x0f;
  const std::uint32_t binary =
      (static_cast<std::uint32_t>(mac[offset] & 0x7f) << 24) | (static_cast<std::uint32_t>(mac[offset + 1]) << 16) |
      (static_cast<std::uint32_t>(mac[offset + 2]) << 8) | static_cast<std::uint32_t>(mac[offset + 3]);
  char out[kTotpDigits + 1];
  std::snprintf(out, sizeof out, "%06u", static_cast<unsigned>(binary % 1000000U));
  return out;
}

std::string base32_encode(std::string_view bytes) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 5) {
      out += kBase32[(buffer >> (bits - 5)) & 0x1f];
      bits -= 5;
    }
  }
  if (bits > 0) out += kBase32[(buffer << (5 - bits)) & 0x1f];
  return out;
}

std::optional<std::string> base32_decode(std::string_view text) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == ' ' || c == '=') continue;
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    auto pos = kBase32.find(c);
    if (pos == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 5) | static_cast<unsigned>(pos);
    bits += 5;
    if (bits >= 8) {
      out += static_cast<char>((buffer >> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return out;
}

std::string seal_totp_secret(std::string_view secret, std::string_view key, std::string_view owner) {
  return seal_private_key(secret, key, owner);
}

std::optional<std::string> open_totp_secret(std::string_view sealed, std::string_view key, std::string_view owner) {
  return open_private_key(sealed, key, owner);
}

}  // namespace svc::crypto
