#pragma once
// [push]: Web Push delivery (push/): which endpoints the SSRF guard lets
// through, the TTL and urgency sent, and the timeouts. Every key is
// documented in docs/configuration.md with its default.

#include <string>
#include <vector>

namespace svc::config {

class Reader;

struct PushSettings {
  bool allow_insecure_endpoints = false;  // tests only: http and loopback endpoints
  std::vector<int> allowed_ports;         // ports a push endpoint may use besides 443
  long long ttl = 2419200;
  std::string urgency = "normal";
  int timeout_ms = 10000;
  int connect_timeout_ms = 3000;  // capped by timeout_ms
};

// Reads and checks [push]; throws ConfigError naming the first bad key.
// REQUIRES: [server] was read; `test_mode` is its test_mode.
void read_push(Reader& r, PushSettings& push, bool test_mode);

}  // namespace svc::config
