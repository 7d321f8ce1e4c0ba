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
// (a stale socket file is replaced; mode from socket_mode) or IPv4:port /
// [IPv6]:port (TCP, e.g. for a FastCGI upstream on another host: exactly
// that address is bound; which peers may connect is the worker's check,
// [server] allowed_peers). Throws std::runtime_error with the reason.
// `address` is [server] socket or hashing_socket. When systemd passed
// sockets (LISTEN_FDS), the one at `inherited_index` is used instead: 0 for
// the main socket, 1 for the hashing socket (the order of ListenStream= lines).
ListenSocket open_listen_socket(const std::string& address, const config::ServerSettings& settings,
                                int inherited_index);

}  // namespace svc::fcgi
