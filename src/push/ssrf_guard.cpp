#include "push/ssrf_guard.hpp"

#include <sys/socket.h>

#include "push/address_policy.hpp"

namespace svc::push {

curl_socket_t guarded_open_socket(void* clientp, curlsocktype purpose, curl_sockaddr* address) {
  auto* guard = static_cast<SocketGuard*>(clientp);
  const bool refused = guard->enforce && (is_forbidden_address(&address->addr) ||
                                          !is_allowed_port(&address->addr, *guard->allowed_ports));
  if (purpose != CURLSOCKTYPE_IPCXN || refused) {
    guard->blocked = true;
    return CURL_SOCKET_BAD;
  }
  const int fd = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  return fd < 0 ? CURL_SOCKET_BAD : fd;
}

void guard_transfer(CURL* handle, SocketGuard& guard, long connect_timeout_ms, long timeout_ms) {
  const char* protocols = guard.enforce ? "https" : "http,https";
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, protocols);
  curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, protocols);
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(handle, CURLOPT_PROXY, "");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, guarded_open_socket);
  curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, &guard);
}

}  // namespace svc::push
