#include "fcgi/listen_socket.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace svc::fcgi {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

// The n-th socket (0-based) systemd passed to this process, or -1.
int inherited_fd(int n) {
  const char* pid = std::getenv("LISTEN_PID");
  const char* fds = std::getenv("LISTEN_FDS");
  if (!pid || !fds || std::atol(pid) != static_cast<long>(getpid()) || std::atoi(fds) <= n) return -1;
  return 3 + n;  // SD_LISTEN_FDS_START
}

ListenSocket open_unix(const std::string& path, const config::ServerSettings& s) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) throw std::runtime_error("[server] socket path too long: " + path);
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) fail("bind " + path);
  if (::chmod(path.c_str(), static_cast<mode_t>(s.socket_mode)) < 0) fail("chmod " + path);
  if (::listen(fd, s.backlog) < 0) fail("listen " + path);
  return {fd, false, path};
}

// Binds exactly the configured address: config load has already refused a
// bare ":port", so every interface is bound only when 0.0.0.0 or [::] is
// written out. Numeric only (AI_NUMERICHOST): no resolver at start-up.
ListenSocket open_tcp(const std::string& address, const config::ServerSettings& s) {
  auto where = config::parse_listen_address(address);
  if (!where) throw std::runtime_error("[server] socket: not IPv4:port or [IPv6]:port: '" + address + "'");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(where->port);
  if (int rc = ::getaddrinfo(where->host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    throw std::runtime_error("[server] socket " + address + ": " + gai_strerror(rc));
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    ::freeaddrinfo(res);
    fail("socket");
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc = ::bind(fd, res->ai_addr, res->ai_addrlen);
  ::freeaddrinfo(res);
  if (rc < 0) fail("bind " + address);
  if (::listen(fd, s.backlog) < 0) fail("listen " + address);
  return {fd, false, ""};
}

}  // namespace

ListenSocket open_listen_socket(const std::string& address, const config::ServerSettings& settings,
                                int inherited_index) {
  ListenSocket s;
  int fd = inherited_fd(inherited_index);
  if (fd >= 0)
    s = {fd, true, ""};
  else if (!address.empty() && address[0] == '/')
    s = open_unix(address, settings);
  else
    s = open_tcp(address, settings);
  // Workers poll, then accept; a worker that loses the race must not block.
  int flags = ::fcntl(s.fd, F_GETFL);
  if (flags < 0 || ::fcntl(s.fd, F_SETFL, flags | O_NONBLOCK) < 0) fail("fcntl O_NONBLOCK");
  return s;
}

}  // namespace svc::fcgi
