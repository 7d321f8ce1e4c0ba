#include "config/push_config.hpp"

#include <cstdlib>

#include "config/reader.hpp"

namespace svc::config {

void read_push(Reader& r, PushSettings& push, bool test_mode) {
  r.boolean("push.allow_insecure_endpoints", push.allow_insecure_endpoints);
  // It switches the whole SSRF guard off: a push could then reach the
  // database, the metadata service or any intranet host. Only a loopback
  // test machine may say so.
  if (push.allow_insecure_endpoints && !test_mode) {
    throw ConfigError(
        "configuration key [push] allow_insecure_endpoints: turns the SSRF guard off; tests only, needs [server] "
        "test_mode = true");
  }
  r.integer("push.ttl", push.ttl, 0, 2419200);
  r.one_of("push.urgency", push.urgency, {"very-low", "low", "normal", "high"});
  r.integer("push.timeout_ms", push.timeout_ms, 100, 120000);
  r.integer("push.connect_timeout_ms", push.connect_timeout_ms, 100, 120000);
  std::vector<std::string> ports;
  r.list("push.allowed_ports", ports);
  if (r.raw("push.allowed_ports")) {
    push.allowed_ports.clear();
    for (const auto& p : ports) {
      char* end = nullptr;
      long n = std::strtol(p.c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > 65535) {
        throw ConfigError("configuration key [push] allowed_ports: expected port numbers, got '" + p + "'");
      }
      push.allowed_ports.push_back(static_cast<int>(n));
    }
  }
}

}  // namespace svc::config
