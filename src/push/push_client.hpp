#pragma once
// Delivery of one encrypted Web Push message (RFC 8030) to a subscription's
// push service, behind an interface so handlers and the sender can be tested
// with a fake.
//
// The endpoint URL comes from a browser, i.e. from the client, so the real
// client guards against SSRF: https only, redirects never followed, no proxy,
// and the address actually connected to (after DNS, for every address curl
// tries) must not be loopback, private, link-local, CGNAT, ULA, multicast or
// unspecified, and its port must be 443 or in PushOptions::allowed_ports.
// PushOptions::allow_insecure_endpoints lifts the https, the address and the
// port rule; only tests and the local stack's push sink set it. The address
// and port rules themselves are push/address_policy.hpp.

#include <mutex>
#include <string>
#include <vector>

#include "push/curl_handle.hpp"

namespace svc::push {

struct PushRequest {
  std::string endpoint;            // subscription URL
  std::string body;                // aes128gcm body (crypto::encrypt_push_payload)
  std::string authorization;       // "vapid t=..., k=..." (crypto::vapid_authorization_header)
  long ttl_seconds = 2419200;      // how long the push service may hold it (28 days)
  std::string urgency = "normal";  // very-low | low | normal | high
  std::string topic;               // optional: replaces a pending message with the same topic;
                                   // at most 32 base64url characters
};

struct PushOptions {
  bool allow_insecure_endpoints = false;  // tests / local sink only
  long connect_timeout_ms = 3000;
  long total_timeout_ms = 10000;
  std::vector<int> allowed_ports;  // ports besides 443 an endpoint may use
};

enum class PushOutcome {
  Delivered,     // 2xx (push services answer 201 Created)
  Gone,          // 404, 410: the subscription is dead; the caller should drop it
  Rejected,      // any other status (3xx, 4xx incl. 429, 5xx), or a request this
                 // client refuses to send (bad Urgency/Topic/TTL, CR/LF in a header)
  Blocked,       // SSRF guard refused the address, or the scheme is not allowed
  NetworkError,  // DNS, connect, TLS, timeout
};

struct PushResult {
  PushOutcome outcome;
  long http_status = 0;  // 0 when no response arrived
  std::string detail;    // for logs only: never shown to API clients
};

class PushClient {
 public:
  virtual ~PushClient() = default;
  // Sends one message; never throws for network or HTTP failures.
  virtual PushResult send(const PushRequest&) = 0;
};

// libcurl implementation. send() reuses one easy handle per client, so its
// connection and DNS cache carry over from one push to the next (keep-alive
// to the push services); a send() that finds that handle in use by another
// thread takes a fresh one, so one object may still be shared by threads.
// Construct it in the process that uses it (after fork). POST with
// Content-Encoding: aes128gcm, Content-Type: application/octet-stream, TTL,
// Urgency, optional Topic and Authorization.
class CurlPushClient final : public PushClient {
 public:
  explicit CurlPushClient(PushOptions options);
  ~CurlPushClient() override;
  PushResult send(const PushRequest& request) override;

 private:
  PushResult perform(void* handle, const PushRequest& request);

  PushOptions options_;
  std::mutex reuse_lock_;  // held while handle_ is in use
  CurlHandle handle_;      // kept between sends
};

}  // namespace svc::push
