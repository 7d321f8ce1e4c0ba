// The open-loop load generator of the mixed-traffic arm (bench/mix.py).
//
//   mix_load PLAN RESULTS
//
// PLAN (written by bench/mix.py) holds the port, the rate, the request
// blobs (whole HTTP/1.1 requests) and the schedule: request i is due at
// start + i / rate, whatever happened before it. RESULTS gets one line per
// request, in schedule order: "status latency_us lag_us", where latency runs
// from the due time to the end of the reply (no coordinated omission) and
// lag is how late the generator itself sent it. Status 0: no reply within
// the timeout, or the connection failed.
//
// One thread, epoll, kept connections (at most kMaxConnections; a request
// waits for a free one and that wait counts as latency). Python costs about
// 160 µs of CPU per request; this costs a few, so at 1,500 req/s the
// generator no longer takes a tenth of a 2-core machine from the server.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kMaxConnections = 512;
constexpr long long kTimeoutUs = 10'000'000;
constexpr long long kStartDelayUs = 200'000;

long long now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Plan {
  int port = 0;
  double rate = 0;
  std::vector<std::string> blobs;
  std::vector<int> schedule;  // blob index per request
};

// Format: "port rate blob_count request_count\n", then per blob
// "length\n" + the bytes, then request_count blob indices, one per line.
Plan read_plan(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("cannot read ") + path);
  Plan p;
  size_t blobs = 0, requests = 0;
  in >> p.port >> p.rate >> blobs >> requests;
  in.get();
  for (size_t i = 0; i < blobs; ++i) {
    size_t len = 0;
    in >> len;
    in.get();
    std::string b(len, '\0');
    in.read(b.data(), static_cast<std::streamsize>(len));
    p.blobs.push_back(std::move(b));
  }
  p.schedule.resize(requests);
  for (auto& idx : p.schedule) in >> idx;
  if (!in || p.rate <= 0) throw std::runtime_error("malformed plan");
  for (int idx : p.schedule) {
    if (idx < 0 || static_cast<size_t>(idx) >= p.blobs.size()) throw std::runtime_error("blob index out of range");
  }
  return p;
}

struct Result {
  int status = -1;  // -1: not finished
  long long latency_us = 0;
  long long lag_us = 0;
};

struct Conn {
  int fd = -1;
  int request = -1;  // index into the schedule, -1 = idle
  const std::string* out = nullptr;
  size_t sent = 0;
  std::string in;
  bool connecting = false;
};

// Parses one whole HTTP/1.1 response at the start of `buf`: its status and
// whether the server will close, or status 0 while incomplete.
struct Parsed {
  int status = 0;
  bool close = false;
  bool bad = false;
};

bool ieq_prefix(const char* a, const char* lower_b) {
  for (; *lower_b; ++a, ++lower_b) {
    if (std::tolower(static_cast<unsigned char>(*a)) != *lower_b) return false;
  }
  return true;
}

Parsed parse_response(const std::string& buf) {
  Parsed r;
  const size_t head_end = buf.find("\r\n\r\n");
  if (head_end == std::string::npos) return r;
  if (buf.compare(0, 5, "HTTP/") != 0) return {0, true, true};
  const size_t sp = buf.find(' ');
  const int status = std::atoi(buf.c_str() + sp + 1);
  long long length = 0;
  bool chunked = false;
  for (size_t pos = buf.find("\r\n") + 2; pos < head_end;) {
    const size_t eol = buf.find("\r\n", pos);
    const char* line = buf.c_str() + pos;
    if (ieq_prefix(line, "content-length:")) length = std::atoll(line + 15);
    if (ieq_prefix(line, "transfer-encoding:") && buf.compare(pos + 18, eol - pos - 18, " chunked") == 0) {
      chunked = true;
    }
    if (ieq_prefix(line, "connection:") && ieq_prefix(line + 11, " close")) r.close = true;
    pos = eol + 2;
  }
  size_t body = head_end + 4;
  if (!chunked) {
    if (buf.size() < body + static_cast<size_t>(length)) return r;
    r.status = status;
    return r;
  }
  while (true) {  // chunk-size CRLF data CRLF ... 0 CRLF CRLF
    const size_t eol = buf.find("\r\n", body);
    if (eol == std::string::npos) return r;
    const long long size = std::strtoll(buf.c_str() + body, nullptr, 16);
    if (size == 0) {
      if (buf.size() < eol + 4) return r;
      r.status = status;
      return r;
    }
    body = eol + 2 + static_cast<size_t>(size) + 2;
    if (buf.size() < body) return r;
  }
}

class Generator {
 public:
  explicit Generator(Plan plan) : plan_(std::move(plan)), results_(plan_.schedule.size()) {
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    conns_.reserve(kMaxConnections);
  }

  void run() {
    start_us_ = now_us() + kStartDelayUs;
    step_us_ = 1e6 / plan_.rate;
    size_t next = 0;
    const size_t total = plan_.schedule.size();
    epoll_event events[256];
    while (finished_ < total) {
      const long long now = now_us();
      while (next < total && due(next) <= now) waiting_.push_back(next++);
      dispatch();
      expire(now);
      // Milliseconds, rounded up: a request goes out at most 1 ms late
      // (reported as lag), and the generator never spins.
      long long wait_ms = 100;
      if (next < total) wait_ms = std::min(100LL, (std::max(0LL, due(next) - now_us()) + 999) / 1000);
      const int n = epoll_wait(epfd_, events, 256, static_cast<int>(wait_ms));
      for (int i = 0; i < n; ++i) {
        on_event(static_cast<int>(events[i].data.u32), events[i].events);
      }
    }
  }

  void write(const char* path) const {
    FILE* f = std::fopen(path, "w");
    if (!f) throw std::runtime_error(std::string("cannot write ") + path);
    for (const auto& r : results_) std::fprintf(f, "%d %lld %lld\n", r.status, r.latency_us, r.lag_us);
    std::fclose(f);
  }

 private:
  long long due(size_t i) const { return start_us_ + static_cast<long long>(static_cast<double>(i) * step_us_); }

  // Sends every waiting request that can have a connection.
  void dispatch() {
    while (!waiting_.empty()) {
      int c = -1;
      if (!idle_.empty()) {
        c = idle_.back();
        idle_.pop_back();
      } else if (open_ < kMaxConnections) {
        c = open_conn();
      }
      if (c < 0) return;
      const size_t i = waiting_.front();
      waiting_.pop_front();
      Conn& conn = conns_[c];
      conn.request = static_cast<int>(i);
      conn.out = &plan_.blobs[plan_.schedule[i]];
      conn.sent = 0;
      conn.in.clear();
      results_[i].lag_us = now_us() - due(i);
      if (!conn.connecting) flush(c);
    }
  }

  int open_conn() {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(plan_.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool pending = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0;
    if (pending && errno != EINPROGRESS) {
      close(fd);
      return -1;
    }
    int c = -1;
    for (size_t k = 0; k < conns_.size(); ++k) {
      if (conns_[k].fd < 0) {
        c = static_cast<int>(k);
        break;
      }
    }
    if (c < 0) {
      conns_.emplace_back();
      c = static_cast<int>(conns_.size() - 1);
    }
    conns_[c] = Conn{};
    conns_[c].fd = fd;
    conns_[c].connecting = pending;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
    ev.data.u32 = static_cast<uint32_t>(c);
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    ++open_;
    return c;
  }

  void flush(int c) {
    Conn& conn = conns_[c];
    while (conn.out && conn.sent < conn.out->size()) {
      const ssize_t n = send(conn.fd, conn.out->data() + conn.sent, conn.out->size() - conn.sent, MSG_NOSIGNAL);
      if (n > 0) {
        conn.sent += static_cast<size_t>(n);
      } else if (n < 0 && errno == EAGAIN) {
        return;
      } else {
        return;  // the read side sees the error or EOF
      }
    }
  }

  void finish(int c, int status, bool keep) {
    Conn& conn = conns_[c];
    if (conn.request >= 0) {
      Result& r = results_[conn.request];
      r.status = status;
      r.latency_us = now_us() - due(static_cast<size_t>(conn.request));
      ++finished_;
    }
    conn.request = -1;
    conn.out = nullptr;
    conn.in.clear();
    if (keep) {
      idle_.push_back(c);
      return;
    }
    close(conn.fd);
    conn.fd = -1;
    --open_;
    for (size_t k = 0; k < idle_.size(); ++k) {  // a kept connection the server closed
      if (idle_[k] == c) {
        idle_[k] = idle_.back();
        idle_.pop_back();
        break;
      }
    }
  }

  void on_event(int c, uint32_t what) {
    Conn& conn = conns_[c];
    if (conn.fd < 0) return;
    if (conn.connecting && (what & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(conn.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      conn.connecting = false;
      if (err != 0) return finish(c, 0, false);
    }
    if (what & EPOLLOUT) flush(c);
    if (!(what & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP))) return;
    char buf[16384];
    while (true) {
      const ssize_t n = recv(conn.fd, buf, sizeof buf, 0);
      if (n > 0) {
        conn.in.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EAGAIN) break;
      // EOF or error: a reply in full still counts; otherwise it failed.
      const Parsed p = parse_response(conn.in);
      return finish(c, p.status, false);
    }
    if (conn.request < 0) return;
    const Parsed p = parse_response(conn.in);
    if (p.bad) return finish(c, 0, false);
    if (p.status != 0) finish(c, p.status, !p.close);
  }

  // Requests past the timeout end as status 0 with their connection.
  void expire(long long now) {
    if (now - last_expiry_ < 100'000) return;
    last_expiry_ = now;
    for (size_t k = 0; k < conns_.size(); ++k) {
      const Conn& conn = conns_[k];
      if (conn.fd >= 0 && conn.request >= 0 && now - due(static_cast<size_t>(conn.request)) > kTimeoutUs) {
        finish(static_cast<int>(k), 0, false);
      }
    }
    while (!waiting_.empty() && now - due(waiting_.front()) > kTimeoutUs) {
      Result& r = results_[waiting_.front()];
      r.status = 0;
      r.latency_us = now - due(waiting_.front());
      r.lag_us = r.latency_us;
      waiting_.pop_front();
      ++finished_;
    }
  }

  Plan plan_;
  std::vector<Result> results_;
  std::vector<Conn> conns_;
  std::vector<int> idle_;
  std::deque<size_t> waiting_;
  int epfd_ = -1;
  int open_ = 0;
  size_t finished_ = 0;     // requests with a result
  long long start_us_ = 0;  // when request 0 is due
  double step_us_ = 0;      // between two requests' due times
  long long last_expiry_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mix_load PLAN RESULTS\n");
    return 2;
  }
  try {
    Generator g(read_plan(argv[1]));
    g.run();
    g.write(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mix_load: %s\n", e.what());
    return 1;
  }
  return 0;
}
