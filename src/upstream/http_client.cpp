// Why a handle of our own rather than the webhook client's: the webhook
// client keeps 1 KiB of a reply, a JWKS or a token reply is larger. The
// guard and its options are push's, as for webhooks.

#include "upstream/http_client.hpp"

#include <curl/curl.h>

#include <array>
#include <memory>

#include "push/curl_handle.hpp"
#include "push/ssrf_guard.hpp"

namespace svc::upstream {
namespace {

struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

std::size_t keep_body(char* data, std::size_t size, std::size_t count, void* userp) {
  auto* body = static_cast<std::string*>(userp);
  const std::size_t n = size * count;
  if (body->size() + n > kMaxBody) return 0;  // too large: curl ends the transfer
  body->append(data, n);
  return n;
}

}  // namespace

std::string url_encode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Fetched fetch(const config::Config& config, const FetchRequest& request) {
  thread_local push::CurlHandle handle;
  CURL* h = static_cast<CURL*>(handle.reset());
  if (h == nullptr) return {FetchOutcome::kNetwork, 0, "", "curl_easy_init failed"};
  curl_slist* list = curl_slist_append(nullptr, "Accept: application/json");
  for (const std::string& line : request.headers) list = list ? curl_slist_append(list, line.c_str()) : nullptr;
  if (list == nullptr) return {FetchOutcome::kNetwork, 0, "", "out of memory"};
  std::unique_ptr<curl_slist, SlistFree> headers(list);

  const bool insecure = config.push.allow_insecure_endpoints;
  push::SocketGuard guard{!insecure, false, &config.push.allowed_ports};
  Fetched out;
  std::array<char, CURL_ERROR_SIZE> error{};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  push::guard_transfer(h, guard, 3000, kTimeoutMs);
  if (!request.form.empty()) {
    push::set_post(h, request.form, headers.get(), "svc-upstream/1");
  } else {
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_USERAGENT, "svc-upstream/1");
  }
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error.data());
  const CURLcode rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out.status);
  curl_easy_reset(h);
  if (rc == CURLE_OK) {
    out.outcome = FetchOutcome::kOk;
    out.detail = "HTTP " + std::to_string(out.status);
    return out;
  }
  out.detail = curl_easy_strerror(rc);
  if (error[0] != '\0') out.detail.append(": ").append(error.data());
  if (guard.blocked || rc == CURLE_UNSUPPORTED_PROTOCOL) {
    out.outcome = FetchOutcome::kBlocked;
  } else if (rc == CURLE_OPERATION_TIMEDOUT) {
    out.outcome = FetchOutcome::kTimeout;
  } else if (rc == CURLE_WRITE_ERROR) {
    out.outcome = FetchOutcome::kTooLarge;
  }
  out.body.clear();
  return out;
}

}  // namespace svc::upstream
