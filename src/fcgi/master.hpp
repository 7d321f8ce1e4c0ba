#pragma once

#include <string>

#include "config/config.hpp"
#include "fcgi/worker.hpp"

namespace svc::fcgi {

// The prefork master, as nginx does it: opens (or inherits) the listening
// socket, forks [server] workers, and then sleeps in sigsuspend. Signal
// handlers only set flags; the loop acts on them:
//   SIGCHLD  reap; respawn a worker that died or recycled itself
//   SIGHUP   re-read the configuration file, start new workers with it, then
//            ask the old ones to finish their request and exit
//   SIGTERM/SIGINT  ask every worker to finish, wait up to drain_seconds,
//            kill what is left, remove the socket file, exit 0
// Each worker serves what make_app builds for it after fork. Returns the
// process exit code.
int run_master(config::Config config, ApplicationFactory make_app);

}  // namespace svc::fcgi
