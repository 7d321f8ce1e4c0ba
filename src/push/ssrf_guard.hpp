#pragma once
// The SSRF guard as libcurl applies it (CURLOPT_OPENSOCKETFUNCTION with a
// SocketGuard as CURLOPT_OPENSOCKETDATA): every address curl is about to
// connect to passes address_policy.hpp or the connection is refused. Shared
// by the push client and the webhook client (webhooks/client.cpp): one rule
// for every URL a site gives svc.

#include <curl/curl.h>

#include <vector>

namespace svc::push {

// State shared with the callback for one transfer.
struct SocketGuard {
  bool enforce = true;   // false: [push] allow_insecure_endpoints (tests)
  bool blocked = false;  // set when the guard refused an address
  const std::vector<int>* allowed_ports = nullptr;
};

// The open-socket callback; `clientp` is a SocketGuard.
curl_socket_t guarded_open_socket(void* clientp, curlsocktype purpose, curl_sockaddr* address);

}  // namespace svc::push
