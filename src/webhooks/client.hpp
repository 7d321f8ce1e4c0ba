#pragma once
// One webhook POST (Standard Webhooks headers) with the push SSRF guard
// (push/ssrf_guard.hpp): https only (http too when [push]
// allow_insecure_endpoints, tests), no redirects, no proxy, every address
// connected to checked. The reply's body is read up to kMaxReplyBody bytes
// and the transfer then cut: a receiver answering megabytes costs nothing.

#include <optional>
#include <string>
#include <vector>

#include "push/curl_handle.hpp"

namespace svc::webhooks {

inline constexpr std::size_t kMaxReplyBody = 1024;

struct WebhookOptions {
  bool allow_insecure = false;  // tests / local stack only
  std::vector<int> allowed_ports;
  long timeout_ms = 15000;
  long connect_timeout_ms = 3000;
};

struct WebhookRequest {
  std::string url;
  std::string msg_id;
  long long timestamp = 0;
  std::string signature;  // the webhook-signature header's value
  std::string body;
};

enum class WebhookOutcome {
  kDelivered,  // 2xx
  kGone,       // 410: the endpoint is to be disabled
  kRejected,   // any other status
  kBlocked,    // the SSRF guard or the scheme refused the URL
  kTimeout,    // no complete answer within timeout_ms
  kNetwork,    // DNS, connect, TLS
};

// The metrics and log name of an outcome ("delivered", "gone", ...).
const char* outcome_name(WebhookOutcome outcome);

struct WebhookResult {
  WebhookOutcome outcome = WebhookOutcome::kNetwork;
  int http_status = 0;                   // 0 when no status line arrived
  std::optional<long long> retry_after;  // seconds, from a Retry-After header
  std::string detail;                    // for logs and the queue row
};

// The reason `url` may not be an endpoint ("" when it may): not https (or
// http under allow_insecure), not parseable, a port outside 443 and
// allowed_ports, or a host that is or resolves to an address the guard
// refuses (push/address_policy.hpp). Resolves the host (blocking).
std::string url_problem(const std::string& url, const WebhookOptions& options);

// libcurl client; one per thread (keeps its handle, hence its connections).
class WebhookClient {
 public:
  explicit WebhookClient(WebhookOptions options);
  ~WebhookClient();
  WebhookClient(const WebhookClient&) = delete;
  WebhookClient& operator=(const WebhookClient&) = delete;
  WebhookResult post(const WebhookRequest& request);

 private:
  WebhookOptions options_;
  push::CurlHandle handle_;
};

}  // namespace svc::webhooks
