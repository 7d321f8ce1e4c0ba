#pragma once

#include "config/config.hpp"

namespace svc::fcgi {

// The body of one worker process, run right after fork: installs its signal
// handlers (SIGTERM/SIGINT: finish the request in flight, then exit), builds
// its Services (database connection, crypto init) and serves requests from
// listen_fd until told to stop or until [server] max_requests is reached.
// Returns the process exit code. Single-threaded.
int run_worker(int listen_fd, const config::Config& config);

}  // namespace svc::fcgi
