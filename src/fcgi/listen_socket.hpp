#pragma once

#include <string>

#include "config/config.hpp"

namespace svc::fcgi {

struct ListenSocket {
  int fd = -1;
  bool inherited = false;  // from systemd socket activation
  std::string unix_path;   // set when we created a unix socket (removed on exit)
};

// The listening socket: fd 3 from systemd when LISTEN_PID is this process and
// LISTEN_FDS >= 1; otherwise a new one for [server] socket: a unix path
// (a stale socket file is replaced; mode from socket_mode) or host:port /
// :port (TCP, e.g. for a FastCGI upstream on another host). Throws
// std::runtime_error with the reason.
// `address` is [server] socket or hashing_socket; only the main socket
// (`may_inherit`) can come from systemd.
ListenSocket open_listen_socket(const std::string& address, const config::ServerSettings& settings, bool may_inherit);

}  // namespace svc::fcgi
