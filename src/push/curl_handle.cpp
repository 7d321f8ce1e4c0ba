#include "push/curl_handle.hpp"

#include <curl/curl.h>

#include <mutex>

namespace svc::push {

CurlHandle::CurlHandle() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlHandle::~CurlHandle() {
  if (handle_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(handle_));
}

void* CurlHandle::reset() {
  if (handle_ == nullptr) {
    handle_ = curl_easy_init();
  } else {
    curl_easy_reset(static_cast<CURL*>(handle_));
  }
  return handle_;
}

}  // namespace svc::push
