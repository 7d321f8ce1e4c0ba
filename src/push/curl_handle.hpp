#pragma once
// One libcurl easy handle kept between transfers, so its connections and
// DNS cache carry over (keep-alive to push services and webhook
// receivers). Shared by the push client and the webhook client; the
// options of a guarded transfer are ssrf_guard.hpp's guard_transfer.
// Not thread-safe: one transfer at a time per object.

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

}  // namespace svc::push
