#pragma once
// One libcurl easy handle kept between transfers, so its connections and
// DNS cache carry over (keep-alive to push services and webhook
// receivers). Shared by the push client and the webhook client; the
// options of a guarded transfer are ssrf_guard.hpp's guard_transfer.
// Not thread-safe: one transfer at a time per object.

#include <string_view>

struct curl_slist;

namespace svc::push {

class CurlHandle {
 public:
  CurlHandle();  // runs curl_global_init once per process
  ~CurlHandle();
  CurlHandle(const CurlHandle&) = delete;
  CurlHandle& operator=(const CurlHandle&) = delete;

  // The handle (a CURL*), created on first use, with every option back to
  // its default (curl_easy_reset: the connections and DNS cache stay);
  // nullptr when curl_easy_init failed.
  void* reset();

 private:
  void* handle_ = nullptr;
};

// The options of a POST on `handle` (a CURL*): `body` with `headers` and
// the User-Agent `agent`. Body and headers are not copied: they must
// outlive the transfer.
void set_post(void* handle, std::string_view body, curl_slist* headers, const char* agent);

}  // namespace svc::push
