// libcurl push delivery with an SSRF guard.
//
// Why the guard sits in CURLOPT_OPENSOCKETFUNCTION: checking the host name or
// a DNS answer before the request is racy (DNS rebinding) and misses the
// other addresses curl falls back to. The open-socket callback sees every
// resolved address curl is about to connect to, so refusing there covers the
// address actually used. Proxies are switched off (CURLOPT_PROXY "") because
// through a proxy the callback would only ever see the proxy's address, and
// the *_proxy environment variables would otherwise apply silently.

#include "push/push_client.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/printable.hpp"
#include "core/text.hpp"
#include "push/ssrf_guard.hpp"

namespace svc::push {
namespace {

constexpr std::size_t kMaxDetailBody = 256;

struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using SlistPtr = std::unique_ptr<curl_slist, SlistFree>;

// Keeps the start of the response body for the log detail; drops the rest.
std::size_t collect_body(char* data, std::size_t size, std::size_t count, void* userp) {
  auto* out = static_cast<std::string*>(userp);
  const std::size_t n = size * count;
  out->append(data, std::min(n, kMaxDetailBody - std::min(out->size(), kMaxDetailBody)));
  return n;
}

// REQUIRES: prefix is lower case.
bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return core::ascii_lower(s.substr(0, prefix.size())) == prefix;
}

bool safe_header_value(std::string_view v) {
  return std::none_of(v.begin(), v.end(), [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
}

// RFC 8030 5.3 / 5.4.
const char* invalid_request_reason(const PushRequest& r) {
  static constexpr std::string_view kUrgencies[] = {"very-low", "low", "normal", "high"};
  if (r.ttl_seconds < 0) return "negative TTL";
  if (std::find(std::begin(kUrgencies), std::end(kUrgencies), r.urgency) == std::end(kUrgencies)) {
    return "bad Urgency";
  }
  if (r.topic.size() > 32 || !std::all_of(r.topic.begin(), r.topic.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      })) {
    return "bad Topic";
  }
  if (!safe_header_value(r.authorization) || !safe_header_value(r.endpoint)) {
    return "control character in endpoint or Authorization";
  }
  return nullptr;
}

PushOutcome classify(long status) {
  if (status >= 200 && status < 300) return PushOutcome::Delivered;
  if (status == 404 || status == 410) return PushOutcome::Gone;
  return PushOutcome::Rejected;
}

// The request headers of one push (RFC 8030/8291/8292); null when out of memory.
SlistPtr push_headers(const PushRequest& request) {
  curl_slist* raw_headers = nullptr;
  auto add_header = [&raw_headers](const std::string& line) {
    curl_slist* next = curl_slist_append(raw_headers, line.c_str());
    if (next != nullptr) raw_headers = next;
    return next != nullptr;
  };
  bool headers_ok = add_header("Content-Encoding: aes128gcm") && add_header("Content-Type: application/octet-stream") &&
                    add_header("TTL: " + std::to_string(request.ttl_seconds)) &&
                    add_header("Urgency: " + request.urgency) && add_header("Expect:");  // no 100-continue round trip
  if (headers_ok && !request.topic.empty()) headers_ok = add_header("Topic: " + request.topic);
  if (headers_ok && !request.authorization.empty()) {
    headers_ok = add_header("Authorization: " + request.authorization);
  }
  SlistPtr headers(raw_headers);
  return headers_ok ? std::move(headers) : nullptr;
}

// The outcome of a transfer that curl ended with `rc`: the guard's refusal
// and a refused scheme are Blocked, everything else a network error.
PushResult transfer_failed(CURLcode rc, const char* error_buffer, const SocketGuard& guard) {
  std::string detail = curl_easy_strerror(rc);
  if (error_buffer[0] != '\0') detail.append(": ").append(error_buffer);
  if (guard.blocked) return {PushOutcome::Blocked, 0, "address refused by SSRF guard; " + detail};
  if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) return {PushOutcome::Blocked, 0, detail};
  return {PushOutcome::NetworkError, 0, detail};
}

}  // namespace

CurlPushClient::CurlPushClient(PushOptions options) : options_(options) {}

CurlPushClient::~CurlPushClient() = default;

PushResult CurlPushClient::send(const PushRequest& request) {
  const bool insecure = options_.allow_insecure_endpoints;
  if (!starts_with_nocase(request.endpoint, "https://") &&
      !(insecure && starts_with_nocase(request.endpoint, "http://"))) {
    return {PushOutcome::Blocked, 0, "endpoint scheme not allowed"};
  }
  if (const char* reason = invalid_request_reason(request)) {
    return {PushOutcome::Rejected, 0, std::string("not sent: ") + reason};
  }
  std::unique_lock<std::mutex> reuse(reuse_lock_, std::try_to_lock);
  CurlHandle fresh_if_busy;  // another thread is sending: a handle of its own
  void* handle = (reuse.owns_lock() ? handle_ : fresh_if_busy).reset();
  if (handle == nullptr) return {PushOutcome::NetworkError, 0, "curl_easy_init failed"};
  return perform(handle, request);
}

// One transfer on `handle` (freshly reset or new).
PushResult CurlPushClient::perform(void* handle, const PushRequest& request) {
  const bool insecure = options_.allow_insecure_endpoints;
  SlistPtr headers = push_headers(request);
  if (!headers) return {PushOutcome::NetworkError, 0, "out of memory building headers"};

  SocketGuard guard{!insecure, false, &options_.allowed_ports};
  std::string response_start;
  std::array<char, CURL_ERROR_SIZE> error{};
  CURL* h = static_cast<CURL*>(handle);
  curl_easy_setopt(h, CURLOPT_URL, request.endpoint.c_str());
  guard_transfer(h, guard, options_.connect_timeout_ms, options_.total_timeout_ms);
  set_post(h, request.body, headers.get(), "svc-push/1");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &response_start);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error.data());

  const CURLcode rc = curl_easy_perform(h);
  // The handle outlives these locals: drop the pointers to them.
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, nullptr);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, nullptr);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, nullptr);
  if (rc != CURLE_OK) return transfer_failed(rc, error.data(), guard);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  return {classify(status), status,
          "HTTP " + std::to_string(status) + (response_start.empty() ? "" : ": " + core::printable(response_start))};
}

}  // namespace svc::push
