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

// The options every transfer to a URL a site gave svc needs: https only
// (http too when the guard does not enforce: tests), also after a redirect,
// which is never followed; no proxy (through one the callback would only
// see the proxy's address); no signals; the timeouts; `guard` on every
// socket curl opens. `guard` must outlive the transfer.
void guard_transfer(CURL* handle, SocketGuard& guard, long connect_timeout_ms, long timeout_ms);

}  // namespace svc::push
