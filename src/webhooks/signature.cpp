#include "webhooks/signature.hpp"

#include <ctime>

#include "crypto/encoding.hpp"
#include "crypto/signing_key.hpp"

namespace svc::webhooks {
namespace {

constexpr std::string_view kPrefix = "whsec_";

std::string owner(long long site_id) { return "webhook:" + std::to_string(site_id); }

std::string iso_utc(long long unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string new_secret_key() { return crypto::random_bytes(32); }

std::string format_secret(std::string_view key) { return std::string(kPrefix) + crypto::base64_encode(key); }

std::optional<std::string> parse_secret(std::string_view secret) {
  if (secret.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  auto key = crypto::base64_decode(secret.substr(kPrefix.size()));
  if (!key || key->size() < 24 || key->size() > 64) return std::nullopt;
  return key;
}

// The sealing is the one the access-token signing keys use
// (XChaCha20-Poly1305 with associated data); the site is the associated
// data, so a sealed secret cannot be moved to another site's endpoint.
std::string seal_secret(std::string_view key, std::string_view webhook_key, long long site_id) {
  return crypto::base64url_encode(crypto::seal_private_key(key, webhook_key, owner(site_id)));
}

std::optional<std::string> open_secret(std::string_view sealed, std::string_view webhook_key, long long site_id) {
  const auto raw = crypto::base64url_decode(sealed);
  if (!raw || webhook_key.size() != 32) return std::nullopt;
  return crypto::open_private_key(*raw, webhook_key, owner(site_id));
}

std::string event_body(std::string_view type, long long created_at, std::string_view data) {
  // type is one of kEventTypes (no character JSON would escape).
  std::string body = "{\"type\":\"";
  body.append(type).append("\",\"timestamp\":\"").append(iso_utc(created_at)).append("\",\"data\":");
  body.append(data.empty() ? "{}" : data).append("}");
  return body;
}

std::string sign(std::string_view key, std::string_view msg_id, long long timestamp, std::string_view body) {
  std::string signed_content(msg_id);
  signed_content.append(".").append(std::to_string(timestamp)).append(".").append(body);
  return "v1," + crypto::base64_encode(crypto::hmac_sha256(key, signed_content));
}

std::string signature_header(const std::vector<std::string>& keys, std::string_view msg_id, long long timestamp,
                             std::string_view body) {
  std::string header;
  for (const auto& key : keys) {
    if (!header.empty()) header += ' ';
    header += sign(key, msg_id, timestamp, body);
  }
  return header;
}

}  // namespace svc::webhooks
