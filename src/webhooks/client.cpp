// libcurl webhook delivery. The guard is push's (see push_client.cpp for why
// it sits in the open-socket callback). Reading the reply: the write
// callback keeps kMaxReplyBody bytes for the log and then refuses more,
// which ends the transfer with CURLE_WRITE_ERROR; the status line and
// headers have arrived by then, so the outcome is the status's.

#include "webhooks/client.hpp"

#include <curl/curl.h>
#include <netdb.h>
#include <sys/socket.h>

#include <array>
#include <ctime>
#include <memory>

#include "core/printable.hpp"
#include "core/text.hpp"
#include "push/address_policy.hpp"
#include "push/ssrf_guard.hpp"
#include "webhooks/retry.hpp"

namespace svc::webhooks {
namespace {

struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct UrlFree {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
struct CurlStr {
  char* p = nullptr;
  ~CurlStr() { curl_free(p); }
};

struct Reply {
  std::string start;  // the first kMaxReplyBody bytes
  std::string retry_after;
};

std::size_t keep_start(char* data, std::size_t size, std::size_t count, void* userp) {
  auto* reply = static_cast<Reply*>(userp);
  const std::size_t n = size * count;
  const std::size_t room = kMaxReplyBody - std::min(reply->start.size(), kMaxReplyBody);
  reply->start.append(data, std::min(n, room));
  return n <= room ? n : 0;  // 0: enough read; curl ends the transfer
}

std::size_t keep_retry_after(char* data, std::size_t size, std::size_t count, void* userp) {
  const std::size_t n = size * count;
  std::string_view line(data, n);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size() && core::ascii_lower(line.substr(0, kName.size())) == kName) {
    static_cast<Reply*>(userp)->retry_after = std::string(core::trim_blanks(line.substr(kName.size())));
  }
  return n;
}

std::optional<long long> parse_retry_after(const std::string& value) {
  if (value.empty()) return std::nullopt;
  if (auto seconds = retry_after_seconds(value)) return seconds;
  const std::time_t when = curl_getdate(value.c_str(), nullptr);  // an HTTP-date
  if (when < 0) return std::nullopt;
  return std::max<long long>(0, static_cast<long long>(when - std::time(nullptr)));
}

WebhookOutcome classify(long status) {
  if (status >= 200 && status < 300) return WebhookOutcome::kDelivered;
  if (status == 410) return WebhookOutcome::kGone;
  return WebhookOutcome::kRejected;
}

std::unique_ptr<curl_slist, SlistFree> headers_of(const WebhookRequest& r) {
  curl_slist* list = nullptr;
  for (const std::string& line : {std::string("Content-Type: application/json"), "webhook-id: " + r.msg_id,
                                  "webhook-timestamp: " + std::to_string(r.timestamp),
                                  "webhook-signature: " + r.signature, std::string("Expect:")}) {
    curl_slist* next = curl_slist_append(list, line.c_str());
    if (next == nullptr) {
      curl_slist_free_all(list);
      return nullptr;
    }
    list = next;
  }
  return std::unique_ptr<curl_slist, SlistFree>(list);
}

}  // namespace

const char* outcome_name(WebhookOutcome outcome) {
  switch (outcome) {
    case WebhookOutcome::kDelivered:
      return "delivered";
    case WebhookOutcome::kGone:
      return "gone";
    case WebhookOutcome::kRejected:
      return "rejected";
    case WebhookOutcome::kBlocked:
      return "blocked";
    case WebhookOutcome::kTimeout:
      return "timeout";
    case WebhookOutcome::kNetwork:
      return "network";
  }
  return "network";
}

std::string url_problem(const std::string& url, const WebhookOptions& options) {
  if (url.size() > 2048 || url.find_first_of(" \r\n\t\"<>") != std::string::npos) return "not a URL";
  std::unique_ptr<CURLU, UrlFree> u(curl_url());
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return "not a URL";
  CurlStr scheme, host, port;
  if (curl_url_get(u.get(), CURLUPART_SCHEME, &scheme.p, 0) != CURLUE_OK ||
      curl_url_get(u.get(), CURLUPART_HOST, &host.p, 0) != CURLUE_OK ||
      curl_url_get(u.get(), CURLUPART_PORT, &port.p, CURLU_DEFAULT_PORT) != CURLUE_OK) {
    return "not a URL";
  }
  const std::string s = core::ascii_lower(scheme.p);
  if (s != "https" && !(options.allow_insecure && s == "http")) return "not an https URL";
  if (options.allow_insecure) return "";
  std::string name = host.p;
  if (name.size() > 2 && name.front() == '[') name = name.substr(1, name.size() - 2);  // IPv6 literal
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), port.p, &hints, &found) != 0 || found == nullptr) return "the host does not resolve";
  std::string problem;
  for (addrinfo* a = found; a != nullptr && problem.empty(); a = a->ai_next) {
    if (push::is_forbidden_address(a->ai_addr))
      problem = "a private, loopback or reserved address";
    else if (!push::is_allowed_port(a->ai_addr, options.allowed_ports))
      problem = "a port other than 443";
  }
  freeaddrinfo(found);
  return problem;
}

WebhookClient::WebhookClient(WebhookOptions options) : options_(std::move(options)) {}

WebhookClient::~WebhookClient() = default;

WebhookResult WebhookClient::post(const WebhookRequest& request) {
  const bool insecure = options_.allow_insecure;
  const std::string scheme = core::ascii_lower(request.url.substr(0, request.url.find(':')));
  if (scheme != "https" && !(insecure && scheme == "http")) return {WebhookOutcome::kBlocked, 0, {}, "not https"};
  CURL* h = static_cast<CURL*>(handle_.reset());
  if (h == nullptr) return {WebhookOutcome::kNetwork, 0, {}, "curl_easy_init failed"};
  auto headers = headers_of(request);
  if (!headers) return {WebhookOutcome::kNetwork, 0, {}, "out of memory"};

  push::SocketGuard guard{!insecure, false, &options_.allowed_ports};
  Reply reply;
  std::array<char, CURL_ERROR_SIZE> error{};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  push::guard_transfer(h, guard, std::min(options_.connect_timeout_ms, options_.timeout_ms), options_.timeout_ms);
  push::set_post(h, request.body, headers.get(), "svc-webhooks/1");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_start);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &reply);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, keep_retry_after);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &reply);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error.data());
  const CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_reset(h);  // drop the pointers to this call's locals
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && status > 0)) {
    std::string detail = curl_easy_strerror(rc);
    if (error[0] != '\0') detail.append(": ").append(error.data());
    if (guard.blocked) return {WebhookOutcome::kBlocked, 0, {}, "address refused by SSRF guard; " + detail};
    if (rc == CURLE_UNSUPPORTED_PROTOCOL) return {WebhookOutcome::kBlocked, 0, {}, detail};
    if (rc == CURLE_OPERATION_TIMEDOUT) return {WebhookOutcome::kTimeout, 0, {}, detail};
    return {WebhookOutcome::kNetwork, 0, {}, detail};
  }
  const std::string detail = "HTTP " + std::to_string(status) +
                             (reply.start.empty() ? "" : ": " + core::printable(reply.start.substr(0, 200)));
  return {classify(status), static_cast<int>(status), parse_retry_after(reply.retry_after), detail};
}

}  // namespace svc::webhooks
