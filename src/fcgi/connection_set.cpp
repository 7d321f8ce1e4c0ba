#include "fcgi/connection_set.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

namespace svc::fcgi {
namespace {

// True when the peer has closed `fd` or it failed (a read would return end
// of file or an error); false when bytes or nothing yet wait there.
bool peer_gone(int fd) {
  char byte = 0;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return false;
  return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace

ConnectionSet::ConnectionSet(int listen_fd) : listen_fd_(listen_fd) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw std::runtime_error("epoll_create1 failed");
}

ConnectionSet::~ConnectionSet() {
  std::vector<int> fds;
  fds.reserve(kept_.size());
  for (const auto& [fd, kept] : kept_) fds.push_back(fd);
  for (int fd : fds) close_kept(fd);
  ::close(epoll_fd_);
}

void ConnectionSet::watch_listener(bool on) {
  if (on == listening_) return;
  if (!on) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
    listening_ = false;
    return;
  }
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLEXCLUSIVE;
  ev.data.fd = listen_fd_;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev) != 0) {
    ev.events = EPOLLIN;  // a kernel without EPOLLEXCLUSIVE: every idle worker wakes
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev) != 0) return;
  }
  listening_ = true;
}

long ConnectionSet::served(int fd) const {
  auto it = kept_.find(fd);
  return it == kept_.end() ? 0 : it->second.served;
}

void ConnectionSet::keep(int fd) {
  auto [it, fresh] = kept_.try_emplace(fd);
  it->second.since = std::chrono::steady_clock::now();
  ++it->second.served;
  if (!fresh) return;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) close_kept(fd);
}

void ConnectionSet::forget(int fd) {
  if (kept_.erase(fd) == 0) return;
  // Fails harmlessly when the fd is already closed (closing removes it).
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

void ConnectionSet::close_kept(int fd) {
  forget(fd);
  ::close(fd);
}

Ready ConnectionSet::wait(int timeout_ms, const sigset_t& mask) {
  epoll_event ev{};
  if (::epoll_pwait(epoll_fd_, &ev, 1, timeout_ms, &mask) <= 0) return {};
  if (ev.data.fd == listen_fd_) return {Ready::kListener, listen_fd_};
  const int fd = ev.data.fd;
  if (!holds(fd)) return {};
  if (peer_gone(fd)) {
    close_kept(fd);
    return {};
  }
  return {Ready::kConnection, fd};
}

void ConnectionSet::close_idle(std::chrono::steady_clock::duration limit) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<int> idle;
  for (const auto& [fd, kept] : kept_) {
    if (now - kept.since > limit) idle.push_back(fd);
  }
  for (int fd : idle) close_kept(fd);
}

}  // namespace svc::fcgi
