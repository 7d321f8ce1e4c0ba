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

}  // namespace svc::push
