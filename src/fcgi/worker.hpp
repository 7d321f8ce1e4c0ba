#pragma once

#include <signal.h>

#include <memory>
#include <string>

#include "config/config.hpp"
#include "http/dispatch.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::fcgi {

// What a worker serves. One per worker process, made right after fork by the
// factory the program passes in (the composition root, app/), so this layer
// knows nothing of routes or services. handle() never throws.
class Application {
 public:
  virtual ~Application() = default;
  virtual http::Response handle(http::Request& request, http::BodySource& body) = 0;
};
using ApplicationFactory = std::unique_ptr<Application> (*)(const config::Config& config);

// The signal a worker sends the master when it reaches [server]
// max_requests while it keeps connections: it then takes no new connection
// until nginx has closed those, and the master replaces it at once.
inline constexpr int kRetiringSignal = SIGUSR1;

// The body of one worker process, run right after fork: installs its signal
// handlers (SIGTERM/SIGINT: finish the request in flight, then exit), builds
// its Application with make_app (database connection, crypto init) and serves requests from
// listen_fd until told to stop or until [server] max_requests is reached.
// Every request must carry `front_secret` as FastCGI parameter
// SVC_FRONT_SECRET (fcgi/front_secret.hpp); one that does not is answered
// 403 without reaching the application. "" = no check ([server]
// front_secret_file = none, test configurations only).
// standby_rank >= 0: a standby worker of the outbound pool, which takes
// connections only while its rank is below the pool's active count
// (metrics::outbound_active, set by the master); -1: always.
// Returns the process exit code. Single-threaded.
int run_worker(int listen_fd, const config::Config& config, const std::string& front_secret,
               ApplicationFactory make_app, int standby_rank = -1);

}  // namespace svc::fcgi
