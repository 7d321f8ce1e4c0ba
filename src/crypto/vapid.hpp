#pragma once
// VAPID (RFC 8292): how an application server identifies itself to a push
// service. A JWT signed with ES256 (ECDSA P-256 + SHA-256) whose audience is
// the push endpoint's origin, sent as
//   Authorization: vapid t=<jwt>, k=<base64url(public key)>
//
// Keys are raw bytes: private 32-byte scalar, public 65-byte uncompressed
// point. The database keeps them base64url; decoding is the caller's job.
// Thread/fork safety: every function is reentrant.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

struct VapidKeys {
  std::string private_key;  // 32 bytes
  std::string public_key;   // 65 bytes, 0x04 || X || Y
};

// A fresh P-256 key pair (what `svc-admin` stores per site). Throws
// std::runtime_error only if OpenSSL cannot generate a key.
VapidKeys generate_vapid_keys();

// The signed token: header {"typ":"JWT","alg":"ES256"}, claims
// {"aud":audience_origin,"exp":exp,"sub":subject}, signature the 64-byte raw
// r || s (JWS form, not DER), all base64url without padding.
// REQUIRES: exp is a unix time no more than 24 h ahead (RFC 8292 section 2;
// push services refuse longer ones).
// Returns nullopt when subject starts with neither "mailto:" nor "https:",
// audience_origin is not an origin as endpoint_origin() returns it, exp <= 0,
// or the keys are not a valid matching P-256 pair. Not deterministic: ECDSA
// signatures use a fresh nonce.
std::optional<std::string> vapid_jwt(std::string_view audience_origin, std::string_view subject, long long exp,
                                     const VapidKeys& keys);

// A VAPID key pair parsed and checked (EVP_PKEY_check) once, for signing
// many tokens: what a worker keeps per site instead of re-loading the raw
// keys for every push. Copies share the parsed key (immutable; OpenSSL
// allows concurrent signing with one EVP_PKEY).
class VapidSigner {
 public:
  // nullopt when the keys are not a valid matching P-256 pair.
  static std::optional<VapidSigner> load(const VapidKeys& keys);
  // vapid_jwt() with this key pair: same claims, same nullopt cases for the
  // subject, audience and exp.
  std::optional<std::string> jwt(std::string_view audience_origin, std::string_view subject, long long exp) const;

 private:
  struct Key;
  explicit VapidSigner(std::shared_ptr<const Key> key) : key_(std::move(key)) {}
  std::shared_ptr<const Key> key_;
};

// "vapid t=<jwt>, k=<base64url(public_key_raw)>".
std::string vapid_authorization_header(std::string_view jwt, std::string_view public_key_raw);

// The origin of a push endpoint URL for the JWT audience: lower-case scheme
// and host, port only when not the scheme's default, e.g.
// "https://fcm.googleapis.com/fcm/send/x" -> "https://fcm.googleapis.com",
// "https://Push.Example:8443/a" -> "https://push.example:8443",
// "https://[2001:db8::1]/a" -> "https://[2001:db8::1]". User info is dropped.
// nullopt for a scheme other than https/http, no host, a bad port, or any
// whitespace/control character. (Whether http is acceptable is the push
// client's decision, not this function's.)
std::optional<std::string> endpoint_origin(std::string_view endpoint_url);

}  // namespace svc::crypto
