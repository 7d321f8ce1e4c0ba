#include "fcgi/master.hpp"

#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <thread>
#include <vector>

#include "core/log.hpp"
#include "fcgi/front_secret.hpp"
#include "fcgi/listen_socket.hpp"
#include "fcgi/worker.hpp"
#include "metrics/metrics.hpp"
#include "metrics/outbound_slots.hpp"

namespace svc::fcgi {
namespace {

static_assert(2 * config::kMaxWorkers <= metrics::kMaxWorkerSlots,
              "two generations of workers (a reload) must fit the shared slot tables");

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_reload = 0;
volatile sig_atomic_t g_terminate = 0;

// Workers that said they retire (kRetiringSignal) and still serve their kept
// connections: each is replaced at once, not when it exits. Handlers run
// only inside the master's waits, with every signal it handles blocked, so
// they never run at once.
constexpr int kMaxRetiring = 64;
volatile sig_atomic_t g_retiring[kMaxRetiring];
volatile sig_atomic_t g_retiring_count = 0;

void on_signal(int sig, siginfo_t* info, void*) {
  if (sig == SIGCHLD) {
    g_child = 1;
  } else if (sig == SIGHUP) {
    g_reload = 1;
  } else if (sig == kRetiringSignal) {
    // A full list drops the notice: that worker is then replaced when it exits.
    if (info && g_retiring_count < kMaxRetiring) {
      g_retiring[g_retiring_count] = info->si_pid;
      g_retiring_count = g_retiring_count + 1;
    }
  } else {
    g_terminate = 1;
  }
}

// Pool 0 serves [server] socket; pool 1 (optional) serves
// [server] hashing_socket, where nginx sends the Argon2id routes so a login
// flood cannot occupy every worker; pool 2 (optional) serves
// [server] outbound_socket, where nginx sends the routes that wait on an
// outside party (push service, SMS gateway, merge SQL), so a black-holed
// endpoint occupies only workers sized for waiting.
constexpr int kPoolCount = 3;
constexpr int kOutboundPool = 2;

// The outbound pool is sized by demand. Its [server] outbound_workers
// processes all run, but only the first few by rank take connections: as
// many as there are CPUs (at least 2), plus one for every worker of the pool
// that has been on one request for kWaitingMs or more, i.e. is waiting on a
// push service, an SMS gateway or a merge query. Plain notifications thus
// run on a few warm workers and database connections (16 of them taking
// turns on 2 CPUs cost about a sixth more CPU per request, docs/benchmarks-history.md),
// while every slow call still finds the pool larger by one. The master
// recounts every kSizeEveryMs; a standby worker sleeps on the shared count
// (metrics::wait_outbound_active) and is woken when it changes. 10 ms: a
// request of svc's own takes well under 1 ms of CPU, and a 100 ms push
// counts for nine tenths of its time (at 50 ms, half: 16 such pushes found
// only about 11 workers, docs/decisions.md).
constexpr long long kWaitingMs = 10;
constexpr long kSizeEveryMs = 20;
struct WorkerInfo {
  int generation = 0;
  int pool = 0;
  int rank = 0;  // 0.. within its pool and generation
  long long started_ms = 0;
  int metrics_slot = -1;  // its busy/idle slot in the shared metrics block
  bool replaced = false;  // retiring, and already replaced (replace_retiring)
};

int online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

long long now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

class Master {
 public:
  Master(config::Config config, std::string front_secret, ListenSocket socket, ListenSocket hashing_socket,
         ListenSocket outbound_socket, ApplicationFactory make_app)
      : config_(std::move(config)),
        front_secret_(std::move(front_secret)),
        sockets_{std::move(socket), std::move(hashing_socket), std::move(outbound_socket)},
        make_app_(make_app) {}

  int run() {
    // More workers than the shared tables hold would leave some without a
    // slot, and the outbound cap refuses those every call (it fails closed):
    // refuse the configuration instead.
    if (total_workers() > config::kMaxWorkers) {
      core::LogLine("error", "too_many_workers").num("workers", total_workers()).num("max", config::kMaxWorkers).emit();
      return 1;
    }
    spawn_all();
    size_outbound_pool();
    sigset_t empty;
    sigemptyset(&empty);
    while (!g_terminate) {
      if (!g_child && !g_reload && !g_retiring_count) {
        if (worker_count(kOutboundPool) > 0) {
          const timespec tick{0, kSizeEveryMs * 1000000L};
          ::ppoll(nullptr, 0, &tick, &empty);
          size_outbound_pool();
        } else {
          sigsuspend(&empty);
        }
      }
      // Before reaping: a worker that retired and exited at once is then
      // replaced here and not a second time.
      if (g_retiring_count) replace_retiring();
      if (g_child) {
        g_child = 0;
        reap_and_respawn();
      }
      if (g_reload) {
        g_reload = 0;
        reload();
      }
    }
    return shutdown();
  }

 private:
  int worker_count(int pool = 0) const {
    if (pool != 0 && sockets_[pool].fd < 0) return 0;
    if (pool == kOutboundPool) return config_.server.outbound_workers;
    int configured = pool == 1 ? config_.server.hashing_workers : config_.server.workers;
    return configured > 0 ? configured : cpus_;
  }

  // Every pool's worker count as it will run (CPUs resolved, pools whose
  // socket is open).
  int total_workers() const {
    int total = 0;
    for (int pool = 0; pool < kPoolCount; ++pool) total += worker_count(pool);
    return total;
  }

  void spawn_all() {
    for (int pool = 0; pool < kPoolCount; ++pool) {
      for (int rank = 0; rank < worker_count(pool); ++rank) spawn(pool, rank);
    }
  }

  // See kWaitingMs.
  void size_outbound_pool() {
    const int most = worker_count(kOutboundPool);
    if (most == 0) return;
    const int waiting = metrics::workers_busy_since(kOutboundPool, metrics::monotonic_ms() - kWaitingMs);
    metrics::set_outbound_active(std::min(most, outbound_base() + waiting));
  }

  // The outbound workers that always take connections (ranks below it).
  int outbound_base() const { return std::min(worker_count(kOutboundPool), std::max(2, cpus_)); }

  void spawn(int pool, int rank) {
    int slot = metrics::claim_worker_slot(pool);
    // Only when reloads overlap (three generations alive): this worker
    // serves, but its outbound calls are refused until it is replaced.
    if (slot < 0) core::LogLine("warn", "worker_without_slot").num("pool", pool).emit();
    pid_t pid = fork();
    if (pid < 0) {
      metrics::release_worker_slot(slot);
      core::LogLine("error", "fork_failed").emit();
      return;
    }
    if (pid == 0) {
      // A worker listens on its own pool's socket only; closing the others
      // also lets ops tools tell the pools apart by their open socket.
      for (int other = 0; other < kPoolCount; ++other) {
        if (other != pool && sockets_[other].fd >= 0) ::close(sockets_[other].fd);
      }
      metrics::attach_worker(slot, pool);
      int code = 1;
      try {
        code = run_worker(sockets_[pool].fd, config_, front_secret_, make_app_,
                          pool == kOutboundPool && rank >= outbound_base() ? rank : -1);
      } catch (const std::exception& e) {
        core::LogLine("error", "worker_failed").str("error", e.what()).emit();
      }
      _exit(code);
    }
    metrics::assign_worker_slot(slot, pid);
    workers_[pid] = WorkerInfo{generation_, pool, rank, now_ms(), slot};
  }

  // Workers that reached [server] max_requests and wait for nginx to close
  // their kept connections (fcgi/worker.cpp drain_kept) take no new
  // connection meanwhile: each gets its replacement now.
  void replace_retiring() {
    std::vector<pid_t> pids;
    for (int i = 0; i < g_retiring_count; ++i) pids.push_back(static_cast<pid_t>(g_retiring[i]));
    g_retiring_count = 0;
    for (pid_t pid : pids) {
      auto it = workers_.find(pid);
      if (it == workers_.end() || it->second.replaced || it->second.generation != generation_) continue;
      it->second.replaced = true;
      const WorkerInfo info = it->second;
      spawn(info.pool, info.rank);
    }
  }

  void reap_and_respawn() {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = workers_.find(pid);
      if (it == workers_.end()) continue;
      WorkerInfo info = it->second;
      workers_.erase(it);
      // A worker killed in the middle of a push still names its site in the
      // outbound table: free that place before the slot is handed on.
      metrics::clear_outbound_hold(info.metrics_slot);
      metrics::release_worker_slot(info.metrics_slot);
      bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!clean) {
        core::LogLine("warn", "worker_died")
            .num("worker_pid", pid)
            .num("exit_code", WIFEXITED(status) ? WEXITSTATUS(status) : -1)
            .num("signal", WIFSIGNALED(status) ? WTERMSIG(status) : 0)
            .emit();
      }
      if (info.generation != generation_ || g_terminate) continue;  // retired by a reload
      if (info.replaced) continue;                                  // replaced when it retired
      // A worker that dies right after start (bad environment) is respawned
      // at most once per second, not in a tight loop.
      if (!clean && now_ms() - info.started_ms < 1000) std::this_thread::sleep_for(std::chrono::seconds(1));
      spawn(info.pool, info.rank);
    }
  }

  void reload() {
    cpus_ = online_cpus();
    try {
      config::Config fresh = config::load_config(config_.path);
      if (fresh.server.socket != config_.server.socket ||
          fresh.server.hashing_socket != config_.server.hashing_socket ||
          fresh.server.outbound_socket != config_.server.outbound_socket) {
        core::LogLine("warn", "reload_socket_unchanged")
            .str("detail", "[server] socket changes need a restart; keeping the open socket")
            .emit();
      }
      // A new secret (rotation: nginx reloaded with the new include) applies
      // to the new generation; an unreadable file keeps the old one running.
      std::string secret =
          fresh.server.front_secret_file.empty() ? "" : load_front_secret(fresh.server.front_secret_file);
      config::Config previous = std::move(config_);
      config_ = std::move(fresh);
      if (total_workers() > config::kMaxWorkers) {
        core::LogLine("error", "reload_failed")
            .str("error", "more than " + std::to_string(config::kMaxWorkers) + " workers in all pools")
            .emit();
        config_ = std::move(previous);
        return;
      }
      sodium_memzero(front_secret_.data(), front_secret_.size());
      front_secret_ = std::move(secret);
    } catch (const std::exception& e) {
      core::LogLine("error", "reload_failed").str("error", e.what()).emit();
      return;
    }
    int old_generation = generation_++;
    spawn_all();
    for (const auto& [pid, info] : workers_) {
      if (info.generation == old_generation) kill(pid, SIGTERM);
    }
    core::LogLine("info", "reloaded").num("workers", worker_count()).emit();
  }

  int shutdown() {
    core::LogLine("info", "master_stopping").num("workers", static_cast<long long>(workers_.size())).emit();
    for (const auto& [pid, info] : workers_) kill(pid, SIGTERM);
    long long deadline = now_ms() + config_.server.drain_seconds * 1000LL;
    while (!workers_.empty() && now_ms() < deadline) {
      int status = 0;
      pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid > 0) {
        workers_.erase(pid);
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (const auto& [pid, info] : workers_) {
      core::LogLine("warn", "worker_killed").num("worker_pid", pid).emit();
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    for (const auto& socket : sockets_) {
      if (!socket.unix_path.empty()) ::unlink(socket.unix_path.c_str());
    }
    core::LogLine("info", "master_exit").emit();
    return 0;
  }

  config::Config config_;
  std::string front_secret_;  // "" = no check (test configurations)
  ListenSocket sockets_[kPoolCount];
  ApplicationFactory make_app_;
  std::map<pid_t, WorkerInfo> workers_;
  int generation_ = 0;
  // Online CPUs, read at start and at every reload (not on each tick of the
  // outbound pool's count: sysconf reads a /sys file each time).
  int cpus_ = online_cpus();
};

}  // namespace

int run_master(config::Config config, ApplicationFactory make_app) {
  core::set_log_process("master");
  // Before the sockets open: without the secret every request would be
  // refused, so refuse to start instead (the message names the key).
  std::string front_secret =
      config.server.front_secret_file.empty() ? "" : load_front_secret(config.server.front_secret_file);
  // Before any fork: every worker, and every worker that replaces one,
  // counts into this one block; it lives as long as this master.
  metrics::map_shared_block();
  metrics::map_outbound_slots();
  ListenSocket socket = open_listen_socket(config.server.socket, config.server, 0);
  ListenSocket hashing;
  ListenSocket outbound;
  // A second (third) socket from systemd (svc-fcgi.socket's ListenStream=
  // lines) is the hashing (outbound) pool's even when the file names none:
  // nginx sends to it.
  const char* passed = std::getenv("LISTEN_FDS");
  const int passed_count =
      passed && std::getenv("LISTEN_PID") && std::atol(std::getenv("LISTEN_PID")) == static_cast<long>(getpid())
          ? std::atoi(passed)
          : 0;
  if (!config.server.hashing_socket.empty() || passed_count >= 2) {
    hashing = open_listen_socket(config.server.hashing_socket, config.server, 1);
  }
  if (!config.server.outbound_socket.empty() || passed_count >= 3) {
    outbound = open_listen_socket(config.server.outbound_socket, config.server, kOutboundPool);
  }
  // A test configuration listens on this machine only: the file's sockets
  // were checked when it was read, the ones systemd passes are checked here.
  if (config.server.test_mode) {
    for (const ListenSocket* s : {&socket, &hashing, &outbound}) {
      if (s->fd < 0) continue;
      sockaddr_storage address{};
      socklen_t length = sizeof address;
      const auto* a = reinterpret_cast<const sockaddr*>(&address);
      if (::getsockname(s->fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
          !config::peer_allowed(config::loopback_peers(), a)) {
        core::LogLine("error", "test_mode_socket_not_local")
            .str("detail", "[server] test_mode needs unix or loopback sockets, also those systemd passes")
            .emit();
        return 1;
      }
    }
  }
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  unsetenv("LISTEN_FDNAMES");

  constexpr int kHandled[] = {SIGCHLD, SIGHUP, SIGTERM, SIGINT, SIGQUIT, kRetiringSignal};
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : kHandled) sigaddset(&sa.sa_mask, sig);  // one handler at a time
  sa.sa_flags = SA_SIGINFO;
  for (int sig : kHandled) sigaction(sig, &sa, nullptr);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, nullptr);
  // Keep the signals blocked except inside sigsuspend, so none is lost
  // between checking the flags and sleeping.
  sigset_t block;
  sigemptyset(&block);
  for (int sig : kHandled) sigaddset(&block, sig);
  sigprocmask(SIG_BLOCK, &block, nullptr);

  core::LogLine("info", "master_started")
      .str("socket", socket.inherited ? "inherited (systemd)" : config.server.socket)
      .emit();
  return Master(std::move(config), std::move(front_secret), std::move(socket), std::move(hashing), std::move(outbound),
                make_app)
      .run();
}

}  // namespace svc::fcgi
