#pragma once

#include <signal.h>

#include <chrono>
#include <cstddef>
#include <unordered_map>

namespace svc::fcgi {

// How long a kept connection may sit idle before its worker closes it. Above
// nginx's default upstream keepalive_timeout (60 s), so nginx, which closes
// an idle kept connection itself, always does so first: a worker that
// closed one nginx still holds races nginx sending a request on it, and
// nginx answers a POST that met a closed connection with 502.
inline constexpr std::chrono::seconds kKeptIdleLimit{75};
// At most this many kept connections per worker; a worker holding them all
// leaves new connections to the others.
inline constexpr size_t kMaxKeptConnections = 256;

// What a wait found.
struct Ready {
  enum Kind { kNothing, kListener, kConnection } kind = kNothing;
  int fd = -1;  // kConnection: the kept connection with a request to read
};

// The listening socket and the connections one worker keeps open between
// requests (FCGI_KEEP_CONN: nginx's fastcgi_keep_conn on with an upstream
// keepalive pool), watched in one epoll set. A worker waits on all of them
// at once, so an idle kept connection never stops it from taking a new one,
// and a request on any of them is served as soon as the worker is free.
// Level-triggered: each wait returns one ready source, and epoll hands them
// out in turn. The listening socket is registered with EPOLLEXCLUSIVE (one
// idle worker of a pool is woken per new connection, not all of them) where
// the kernel has it (Linux 4.5). Single-threaded; owns the kept connections
// and closes them when destroyed.
class ConnectionSet {
 public:
  // Throws std::runtime_error when no epoll instance can be made.
  explicit ConnectionSet(int listen_fd);
  ~ConnectionSet();
  ConnectionSet(const ConnectionSet&) = delete;
  ConnectionSet& operator=(const ConnectionSet&) = delete;

  bool empty() const { return kept_.empty(); }
  size_t size() const { return kept_.size(); }
  bool holds(int fd) const { return kept_.count(fd) != 0; }
  // How many requests `fd` has carried so far (0: a new connection).
  long served(int fd) const;

  // Watches the listening socket (on) or not (off): a worker that may not
  // take new connections (a standby, one at kMaxKeptConnections, one
  // draining) still serves the ones it keeps.
  void watch_listener(bool on);
  // Keeps `fd`, whose last request asked for it, for the next request; its
  // idle time starts now and its count of requests served grows by one.
  void keep(int fd);
  // Stops watching `fd` (it is, or is about to be, closed by the caller).
  void forget(int fd);

  // Waits up to timeout_ms with the signal mask `mask` (SIGTERM deliverable)
  // for the listening socket or a kept connection with a request. A kept
  // connection whose peer has closed it is closed here and not returned.
  Ready wait(int timeout_ms, const sigset_t& mask);
  // Closes the kept connections idle for longer than `limit`.
  void close_idle(std::chrono::steady_clock::duration limit);

 private:
  void close_kept(int fd);

  int epoll_fd_ = -1;
  int listen_fd_;
  bool listening_ = false;
  struct Kept {
    std::chrono::steady_clock::time_point since;  // when its last request was served
    long served = 0;
  };
  std::unordered_map<int, Kept> kept_;
};

}  // namespace svc::fcgi
