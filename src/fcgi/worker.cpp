#include "fcgi/worker.hpp"

#include <arpa/inet.h>
#include <fcgiapp.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <sodium.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "fcgi/connection_set.hpp"
#include "fcgi/front_secret.hpp"
#include "metrics/metrics.hpp"

namespace svc::fcgi {
namespace {

volatile sig_atomic_t g_stop = 0;

void on_stop(int) { g_stop = 1; }

// SIGTERM/SIGINT stay blocked while a request is served and are only
// delivered inside the waits (epoll_pwait) while the worker is idle, so a stop never
// interrupts a request half-read or half-written.
sigset_t install_worker_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, nullptr);
  sigaction(SIGHUP, &ign, nullptr);
  sigaction(kRetiringSignal, &ign, nullptr);  // the master's, never a worker's
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &dfl, nullptr);
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigprocmask(SIG_SETMASK, &blocked, nullptr);
  sigset_t idle;
  sigemptyset(&idle);
  return idle;
}

class FcgiBody final : public http::BodySource {
 public:
  explicit FcgiBody(FCGX_Stream* in) : in_(in) {}
  // Grows with what arrives: a route's limit (1 MiB on /message/*) is a
  // ceiling, not an allocation.
  std::string read(size_t max) override {
    std::string out;
    char chunk[16384];
    while (out.size() < max) {
      int n = FCGX_GetStr(chunk, static_cast<int>(std::min(max - out.size(), sizeof chunk)), in_);
      if (n <= 0) break;
      out.append(chunk, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  FCGX_Stream* in_;
};

// Reads what is left of the request body (up to 64 KiB); true when its end
// was reached.
bool drain_input(FCGX_Stream* in) {
  char scratch[4096];
  for (size_t total = 0; total < 65536;) {
    int n = FCGX_GetStr(scratch, sizeof scratch, in);
    if (n <= 0) return true;
    total += static_cast<size_t>(n);
  }
  return FCGX_HasSeenEOF(in) != 0;
}

std::string param(FCGX_ParamArray envp, const char* name) {
  const char* v = FCGX_GetParam(name, envp);
  return v ? v : "";
}

http::Request build_request(const FCGX_Request& fr) {
  http::Request r;
  r.method = param(fr.envp, "REQUEST_METHOD");
  std::string uri = param(fr.envp, "REQUEST_URI");
  size_t q = uri.find('?');
  r.path = uri.substr(0, q);
  if (q != std::string::npos) r.query = uri.substr(q + 1);
  if (r.path.empty()) r.path = param(fr.envp, "DOCUMENT_URI");
  r.remote_addr = param(fr.envp, "REMOTE_ADDR");
  r.request_id = param(fr.envp, "REQUEST_ID");
  if (r.request_id.empty() || r.request_id.size() > 64) r.request_id = crypto::hex_encode(crypto::random_bytes(16));
  if (auto length = core::parse_id(param(fr.envp, "CONTENT_LENGTH"))) r.content_length = *length;
  for (char** p = fr.envp; p && *p; ++p) {
    if (std::strncmp(*p, "HTTP_", 5) != 0) continue;
    const char* eq = std::strchr(*p, '=');
    if (!eq) continue;
    std::string name = core::ascii_lower(std::string_view(*p + 5, static_cast<size_t>(eq - (*p + 5))));
    std::replace(name.begin(), name.end(), '_', '-');
    // nginx before 1.23 passes a repeated header line as a second parameter
    // of the same name (1.23 joins them itself): join them the same way, with
    // ", " (RFC 9110, 5.3), so no reader silently gets the first or the last.
    auto [it, fresh] = r.headers.try_emplace(name, eq + 1);
    if (!fresh) it->second.append(", ").append(eq + 1);
  }
  std::string ct = param(fr.envp, "CONTENT_TYPE");
  if (!ct.empty()) r.headers["content-type"] = ct;
  return r;
}

// The peer's address as text ("10.1.0.7", "::1"), for the log.
std::string peer_text(const sockaddr_storage& peer) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (peer.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&peer)->sin_addr, buf, sizeof buf);
  } else if (peer.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

// At most one log line a second (a scan or a flood must not fill the log),
// counting the lines held back. Per worker; not thread-safe.
class OncePerSecond {
 public:
  // True when a line may be written now; `held_back` is then how many were
  // not written since the last one.
  bool due(long& held_back) {
    const auto now = std::chrono::steady_clock::now();
    if (last_ != std::chrono::steady_clock::time_point{} && now - last_ < std::chrono::seconds(1)) {
      ++unlogged_;
      return false;
    }
    held_back = unlogged_;
    last_ = now;
    unlogged_ = 0;
    return true;
  }

 private:
  std::chrono::steady_clock::time_point last_{};
  long unlogged_ = 0;
};

// A refused peer is logged at most once a second per worker; the line says
// how many went unlogged since.
void log_refused(const sockaddr_storage& peer) {
  static OncePerSecond limit;
  long unlogged = 0;
  if (!limit.due(unlogged)) return;
  core::LogLine("warn", "fcgi_peer_refused").str("peer", peer_text(peer)).num("unlogged_before", unlogged).emit();
}

// glibc gives the top of the heap back to the kernel (brk) once more than
// M_TRIM_THRESHOLD (128 KiB by default) is free there. A request builds and
// frees a few rapidjson documents with 64 KiB pools, so every refresh-token
// grew the heap and trimmed it again: 4 brk calls and about 50 page faults
// per request, the largest item of the worker's CPU in a perf profile
// (docs/benchmarks-history.md). A worker keeps up to 1 MiB of free heap instead;
// allocations of 128 KiB and more (large bodies) still use mmap and go back
// when freed.
void keep_heap_between_requests() {
  mallopt(M_TRIM_THRESHOLD, 1 << 20);
  mallopt(M_MMAP_THRESHOLD, 128 << 10);
}

// True when SIGTERM or SIGINT waits to be delivered (they are blocked
// outside the waits): the worker then waits, which delivers it, instead of
// taking another connection first.
bool stop_pending() {
  sigset_t pending;
  if (sigpending(&pending) != 0) return false;
  return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1;
}

// How many connections in a row a worker may take from the backlog without
// waiting first (see next_connection).
constexpr int kAcceptStreak = 16;
// How long a standby outbound worker waits for a connection before it looks
// at the pool's active count again.
constexpr int kStandbyWaitMs = 20;

// Accepts a connection waiting on the non-blocking `listen_fd`; -1 when none
// was there (another worker took it: streak = -1, wait next time) or its
// peer was refused.
// libfcgi's own accept checks FCGI_WEB_SERVER_ADDRS; this one replaces it:
// a TCP peer outside [server] allowed_peers is closed before a byte is
// read, since whoever can send FastCGI records sets REMOTE_ADDR and every
// header the application trusts. Unix socket peers pass (file modes guard
// those).
int accept_allowed(int listen_fd, const std::vector<config::Cidr>& allowed, int& streak) {
  sockaddr_storage peer{};
  socklen_t length = sizeof peer;
  int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC);
  if (fd < 0) {
    streak = -1;
    return -1;
  }
  ++streak;
  if (config::peer_allowed(allowed, reinterpret_cast<const sockaddr*>(&peer))) return fd;
  ::close(fd);
  metrics::count(metrics::Counter::kPeerRefused);
  log_refused(peer);
  return -1;
}

// Where a worker's connections come from: the listening socket and the
// connections it keeps (ConnectionSet).
struct Sources {
  int listen_fd;
  ConnectionSet& kept;
  const sigset_t& idle_mask;
  const std::vector<config::Cidr>& allowed;
  int standby_rank;  // >= 0: a standby outbound worker (run_worker)
};

// Closes kept connections idle past kKeptIdleLimit, at most once a second.
void sweep_idle(ConnectionSet& kept) {
  static std::chrono::steady_clock::time_point last{};
  const auto now = std::chrono::steady_clock::now();
  if (now - last < std::chrono::seconds(1)) return;
  last = now;
  kept.close_idle(kKeptIdleLimit);
}

// Waits (signals unblocked) for the connection to read the next request
// from: a new one, or one kept from an earlier request; -1 when a stop was
// requested. The listening socket is non-blocking, so losing the race for a
// connection to another worker just means waiting again. A worker that
// keeps no connection and has just finished a request first tries to take
// the next one at once: under load the backlog is rarely empty, and that
// saves the wait's system call and a wake-up. Not when a stop signal is
// pending (it is only delivered inside the wait, so a busy worker still
// stops after the request in flight), and at most kAcceptStreak times in a
// row. Held log lines go out before every wait.
int next_connection(const Sources& from, int& streak) {
  while (!g_stop) {
    // A standby outbound worker takes connections only while the master
    // counts it in (its rank below the active count); otherwise it sleeps,
    // or, while it keeps connections, serves only those.
    bool may_accept = from.kept.size() < kMaxKeptConnections;
    if (from.standby_rank >= 0) {
      if (const int active = metrics::outbound_active(); from.standby_rank >= active) {
        if (from.kept.empty()) {
          core::flush_log_lines();
          metrics::wait_outbound_active(active, from.idle_mask);
          streak = -1;
          continue;
        }
        may_accept = false;
      }
    }
    if (may_accept && from.kept.empty() && streak >= 0 && streak < kAcceptStreak && !stop_pending()) {
      if (int fd = accept_allowed(from.listen_fd, from.allowed, streak); fd >= 0) return fd;
      continue;
    }
    core::flush_log_lines();
    streak = 0;
    from.kept.watch_listener(may_accept);
    // A standby waits briefly, so it is back asleep soon after the demand
    // that woke it has gone.
    const Ready ready = from.kept.wait(from.standby_rank >= 0 ? kStandbyWaitMs : 1000, from.idle_mask);
    sweep_idle(from.kept);
    if (ready.kind == Ready::kConnection) return ready.fd;
    if (ready.kind == Ready::kListener) {
      if (int fd = accept_allowed(from.listen_fd, from.allowed, streak); fd >= 0) return fd;
    }
  }
  return -1;
}

// nginx passes SVC_QUEUE_START = $msec (wall-clock seconds with millisecond
// precision, evaluated when nginx builds the FastCGI request, i.e. after it
// has read the body and before it connects). Until this worker accepted the
// connection the request sat in the listen backlog, waiting for a free
// worker: that wait is what the histogram shows. Same-host clock; a missing
// or unparsable value (another front end) records nothing.
void record_queue_wait(FCGX_ParamArray envp) {
  const char* start = FCGX_GetParam("SVC_QUEUE_START", envp);
  if (!start || !*start) return;
  char* end = nullptr;
  double sent = std::strtod(start, &end);
  if (end == start || *end != '\0' || sent <= 0) return;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  double waited = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9 - sent;
  // $msec is truncated to the millisecond, so a fast hand-over can come out
  // a little negative.
  metrics::record_worker_wait(waited < 0 ? 0 : waited);
}

// A request without the front secret (another local process on the socket,
// or an nginx without the include) is logged at most once a second per
// worker, without anything it sent.
void log_front_refused() {
  static OncePerSecond limit;
  long unlogged = 0;
  if (!limit.due(unlogged)) return;
  core::LogLine("warn", "fcgi_front_secret_refused").num("unlogged_before", unlogged).emit();
}

// Finishes the request in `fr`. True when its connection stays open for the
// next request: the peer asked for that (FCGI_KEEP_CONN) and the body was
// read to its end. Otherwise the connection is closed. fr.ipcFd is -1 after.
bool finish(FCGX_Request& fr) {
  const bool peer_keeps = fr.keepConnection != 0;
  // libfcgi closes with a "lingering close" (shutdown, then up to 2 s of
  // waiting for the peer) unless the connection is kept. When the request
  // body has been read to its end there is nothing to linger for: finish as
  // "kept" and close here at once. A body left unread (a 413) keeps the
  // lingering close, so the reply is not lost to a reset; that connection
  // cannot carry another request.
  const bool drained = drain_input(fr.in);
  fr.keepConnection = drained ? 1 : 0;
  FCGX_Finish_r(&fr);
  const int fd = fr.ipcFd;  // -1: libfcgi closed it (lingering, or a failed write)
  fr.ipcFd = -1;
  if (fd < 0) return false;
  if (peer_keeps) return true;
  ::close(fd);
  return false;
}

// The same 403 whether the secret was missing or wrong, and nothing of the
// request is read or answered beyond it: a process that skipped nginx learns
// only that it must not.
// True when the connection is kept (finish).
bool refuse_without_front_secret(FCGX_Request& fr) {
  const std::string out = http::serialize(http::Response::json(403, R"({"status":"Error","message":"Forbidden"})"));
  FCGX_PutStr(out.data(), static_cast<int>(out.size()), fr.out);
  const bool kept = finish(fr);
  log_front_refused();
  return kept;
}

// Answers the request accepted into `fr` and logs it, with the request's
// place on its connection (1 = the first). True when the connection is kept
// (finish).
bool serve(FCGX_Request& fr, Application& app, long connection_request) {
  auto started = std::chrono::steady_clock::now();
  record_queue_wait(fr.envp);
  http::Request request = build_request(fr);
  FcgiBody body(fr.in);
  http::Response response = app.handle(request, body);
  std::string out = http::serialize(response);
  FCGX_PutStr(out.data(), static_cast<int>(out.size()), fr.out);
  const bool kept = finish(fr);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  core::LogLine(response.status >= 500 ? "error" : "info", "request")
      .str("request_id", request.request_id)
      .str("method", request.method)
      .str("path", request.path)
      .num("status", response.status)
      .real("duration_ms", static_cast<double>(static_cast<long long>(ms * 1000)) / 1000.0)
      .num("connection_request", connection_request)
      .emit();
  return kept;
}

// Reads the request waiting on `conn` and answers it; keeps `conn` in `kept`
// for the next request when the peer asked for that, else it is closed.
void serve_connection(FCGX_Request& fr, int conn, ConnectionSet& kept, const std::string& front_secret,
                      Application& app) {
  metrics::set_busy(true);
  const long earlier = kept.served(conn);
  fr.ipcFd = conn;
  fr.keepConnection = 1;  // so FCGX_Accept_r does not close the fd we just set
  bool keep = false;
  if (FCGX_Accept_r(&fr) < 0) {
    fr.ipcFd = -1;  // a malformed FastCGI request: libfcgi has closed it
  } else if (!front_secret.empty() && !front_secret_matches(front_secret, FCGX_GetParam(kFrontSecretParam, fr.envp))) {
    keep = refuse_without_front_secret(fr);
  } else {
    keep = serve(fr, app, earlier + 1);
  }
  if (keep) {
    kept.keep(conn);
  } else {
    kept.forget(conn);
  }
  metrics::set_busy(false);
}

// After a stop or a recycle: takes no new connection and serves the kept
// ones until their peer closes them (nginx does, after its upstream
// keepalive_timeout, keepalive_time or keepalive_requests), they idle past
// kKeptIdleLimit, or `bound` has passed; then closes what is left. A worker
// never closes a connection nginx may still use when it can wait instead:
// nginx answers a POST that meets a closed kept connection with 502.
void drain_kept(const Sources& from, FCGX_Request& fr, const std::string& front_secret, Application& app,
                std::chrono::steady_clock::duration bound) {
  if (from.kept.empty()) return;
  const auto deadline = std::chrono::steady_clock::now() + bound;
  from.kept.watch_listener(false);
  while (!from.kept.empty() && std::chrono::steady_clock::now() < deadline) {
    core::flush_log_lines();
    const Ready ready = from.kept.wait(100, from.idle_mask);
    if (ready.kind == Ready::kConnection) serve_connection(fr, ready.fd, from.kept, front_secret, app);
    from.kept.close_idle(kKeptIdleLimit);
  }
  if (!from.kept.empty()) {
    core::LogLine("warn", "worker_kept_connections_closed")
        .num("connections", static_cast<long long>(from.kept.size()))
        .emit();
  }
}

}  // namespace

int run_worker(int listen_fd, const config::Config& config, const std::string& front_secret,
               ApplicationFactory make_app, int standby_rank) {
  sigset_t idle_mask = install_worker_signals();
  core::set_log_process("worker");
  keep_heap_between_requests();
  if (sodium_init() < 0) {
    core::LogLine("error", "sodium_init_failed").emit();
    return 1;
  }
  std::unique_ptr<Application> app = make_app(config);
  FCGX_Init();
  // libfcgi never accepts by itself here (listen socket -1): the worker
  // accepts, then hands the connection over through ipcFd.
  FCGX_Request fr;
  FCGX_InitRequest(&fr, -1, 0);
  core::LogLine("info", "worker_started").num("standby_rank", standby_rank).emit();
  core::hold_log_lines(true);

  long served = 0;
  int streak = -1;  // wait before the first accept
  ConnectionSet kept(listen_fd);
  const Sources sources{listen_fd, kept, idle_mask, config.server.allowed_peers, standby_rank};
  while (!g_stop) {
    if (config.server.max_requests > 0 && served >= config.server.max_requests) {
      core::LogLine("info", "worker_recycle").num("served", served).emit();
      // Draining its kept connections takes up to nginx's keepalive_time:
      // the master starts the replacement now instead of at the exit.
      if (!kept.empty()) ::kill(::getppid(), kRetiringSignal);
      break;
    }
    int conn = next_connection(sources, streak);
    if (conn < 0) break;
    serve_connection(fr, conn, kept, front_secret, *app);
    ++served;
  }
  // Half of [server] drain_seconds (after which the master kills a stopping
  // worker), at most 10 s.
  drain_kept(sources, fr, front_secret, *app,
             std::chrono::milliseconds(std::min(10000, config.server.drain_seconds * 500)));
  core::LogLine("info", "worker_exit").num("served", served).emit();
  core::hold_log_lines(false);
  return 0;
}

}  // namespace svc::fcgi
