#pragma once
// [server]: the FastCGI sockets and worker pools of svc-fcgi, who may
// connect, and the test-machine switch. Every key is documented in
// docs/configuration.md with its default.

#include <string>
#include <vector>

#include "config/net.hpp"

namespace svc::config {

class Reader;

// The most workers one svc-fcgi master may run across its pools. During a
// reload two generations run side by side, and every worker needs a record
// in the shared tables (metrics::kMaxWorkerSlots = 2 x this), or the
// per-site outbound cap has no way to count it.
inline constexpr int kMaxWorkers = 128;

struct ServerSettings {
  std::string socket = "/run/svc/svc-fcgi.sock";  // unix path, or IPv4:port / [IPv6]:port
  int socket_mode = 0660;
  int backlog = 256;
  int workers = 0;  // 0 = number of online CPUs
  long max_requests = 10000;
  int drain_seconds = 20;
  std::string hashing_socket;  // "" = one pool; else a second pool for the Argon2id routes
  int hashing_workers = 0;     // 0 = number of online CPUs
  int site_cache_seconds = 1;  // how long a worker reuses a site row for /message/*; 0 = never; at most 60
  // "" = the outbound routes (push, SMS code, notification) stay in the main
  // pool; else a third pool on this socket, sized for waiting on outside parties.
  std::string outbound_socket;
  int outbound_workers = 16;
  // Peers a TCP socket accepts FastCGI connections from (unix sockets
  // ignore it). Default: loopback only.
  std::vector<Cidr> allowed_peers = loopback_peers();
  int template_cache_seconds = 1;  // how long a worker reuses a notification template; 0 = never
  // Marks a test configuration (the local stack, the test suites): only
  // accepted when every FastCGI socket is a unix path or a loopback address,
  // and the only way to enable the tests-only settings ([push]
  // allow_insecure_endpoints).
  bool test_mode = false;
  // The file holding the secret nginx passes as FastCGI parameter
  // SVC_FRONT_SECRET (fcgi/front_secret.hpp); svc-fcgi refuses to start
  // without it. "" (written "none") = no check, only with test_mode.
  std::string front_secret_file = "/etc/svc/front-secret";
};

// Reads and checks [server]; throws ConfigError naming the first bad key.
// Reads it first of all sections: [push] depends on test_mode.
void read_server(Reader& r, ServerSettings& server);

}  // namespace svc::config
