#pragma once
// Standard Webhooks signing (standardwebhooks.com): secrets, the body and
// the webhook-signature header. Pure but for new_secret_key's randomness.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svc::webhooks {

// 32 fresh random bytes: an endpoint's signing key.
std::string new_secret_key();
// "whsec_" + base64 of the key (how the operator and the site see it).
std::string format_secret(std::string_view key);
// The key bytes of a "whsec_..." secret; nullopt when it is not one.
std::optional<std::string> parse_secret(std::string_view secret);

// The key sealed for svc_webhook_endpoints with [keys] webhook_key, bound
// to the site (base64url); open_secret is the inverse (nullopt when the
// key, the site or the bytes do not match).
std::string seal_secret(std::string_view key, std::string_view webhook_key, long long site_id);
std::optional<std::string> open_secret(std::string_view sealed, std::string_view webhook_key, long long site_id);

// The body: {"type":…,"timestamp":"YYYY-MM-DDTHH:MM:SSZ","data":<data>}
// (`data` is inserted as it is: a JSON object). The same bytes for the same
// arguments, so every attempt of an event sends one body.
std::string event_body(std::string_view type, long long created_at, std::string_view data);

// "v1,<base64 HMAC-SHA256(key, msg_id.timestamp.body)>".
std::string sign(std::string_view key, std::string_view msg_id, long long timestamp, std::string_view body);
// The webhook-signature header: one signature per key, space-separated.
std::string signature_header(const std::vector<std::string>& keys, std::string_view msg_id, long long timestamp,
                             std::string_view body);

}  // namespace svc::webhooks
