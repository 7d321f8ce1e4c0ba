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

void set_post(void* handle, std::string_view body, curl_slist* headers, const char* agent) {
  CURL* h = static_cast<CURL*>(handle);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_USERAGENT, agent);
}

}  // namespace svc::push
