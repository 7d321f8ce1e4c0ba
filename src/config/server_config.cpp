#include "config/server_config.hpp"

#include "config/reader.hpp"

namespace svc::config {
namespace {

// [server] socket / hashing_socket: an absolute unix path or a numeric TCP
// address. Binding every interface must be written out (0.0.0.0:port,
// [::]:port): a bare ":port" is refused, so no one opens the FastCGI port
// to the world by leaving the host out.
void check_socket_address(const std::string& key, const std::string& value) {
  if (!value.empty() && value.front() == '/') return;
  if (!value.empty() && value.front() == ':') {
    throw ConfigError("configuration key " + key + ": '" + value +
                      "' would listen on every interface; write the address to bind (e.g. 10.1.0.5" + value +
                      "), or 0.0.0.0" + value + " / [::]" + value + " if every interface is meant");
  }
  if (!parse_listen_address(value)) {
    throw ConfigError("configuration key " + key +
                      ": expected an absolute unix socket path, IPv4:port or [IPv6]:port, got '" + value + "'");
  }
}

// A unix socket path, a loopback TCP address, or "" (no such pool).
bool is_local_socket(const std::string& value) {
  if (value.empty() || value.front() == '/') return true;
  auto address = parse_listen_address(value);
  return address && is_loopback_host(address->host);
}

void read_allowed_peers(Reader& r, ServerSettings& server) {
  std::vector<std::string> items;
  r.list("server.allowed_peers", items);
  if (!r.raw("server.allowed_peers")) return;
  server.allowed_peers.clear();
  for (const auto& item : items) {
    auto block = parse_cidr(item);
    if (!block) {
      throw ConfigError("configuration key [server] allowed_peers: '" + item +
                        "' is not an address or CIDR block (e.g. 10.1.0.0/24, ::1/128) with the host bits clear");
    }
    server.allowed_peers.push_back(*block);
  }
  if (server.allowed_peers.empty()) {
    throw ConfigError("configuration key [server] allowed_peers: empty; leave the key out for loopback only");
  }
}

// "none" only on a test machine; else an absolute path.
void read_front_secret_file(Reader& r, ServerSettings& server) {
  r.str("server.front_secret_file", server.front_secret_file);
  if (server.front_secret_file == "none") {
    if (!server.test_mode) {
      throw ConfigError(
          "configuration key [server] front_secret_file: none lets every local process that can open the socket "
          "skip nginx; tests only, needs [server] test_mode = true");
    }
    server.front_secret_file.clear();
  } else if (server.front_secret_file.empty() || server.front_secret_file.front() != '/') {
    throw ConfigError("configuration key [server] front_secret_file: expected an absolute path, got '" +
                      server.front_secret_file + "'");
  }
}

}  // namespace

void read_server(Reader& r, ServerSettings& server) {
  r.str("server.socket", server.socket);
  check_socket_address("[server] socket", server.socket);
  r.integer("server.socket_mode", server.socket_mode, 0, 0777);
  r.integer("server.backlog", server.backlog, 1, 65535);
  r.integer("server.workers", server.workers, 0, 1024);
  r.integer("server.max_requests", server.max_requests, 0, 1000000000);
  r.integer("server.drain_seconds", server.drain_seconds, 1, 3600);
  r.str("server.hashing_socket", server.hashing_socket);
  if (!server.hashing_socket.empty()) check_socket_address("[server] hashing_socket", server.hashing_socket);
  r.integer("server.hashing_workers", server.hashing_workers, 0, 1024);
  // At most a minute: it is how long a revoked or deactivated site key
  // still works on a worker that read the row before the change.
  r.integer("server.site_cache_seconds", server.site_cache_seconds, 0, 60);
  r.str("server.outbound_socket", server.outbound_socket);
  if (!server.outbound_socket.empty()) check_socket_address("[server] outbound_socket", server.outbound_socket);
  r.integer("server.outbound_workers", server.outbound_workers, 1, 1024);
  read_allowed_peers(r, server);
  r.integer("server.template_cache_seconds", server.template_cache_seconds, 0, 3600);
  r.boolean("server.test_mode", server.test_mode);
  read_front_secret_file(r, server);
  if (server.test_mode) {
    for (const std::string* socket : {&server.socket, &server.hashing_socket, &server.outbound_socket}) {
      if (!is_local_socket(*socket)) {
        throw ConfigError("configuration key [server] test_mode: only for a test machine, but FastCGI socket '" +
                          *socket + "' is neither a unix socket nor a loopback address");
      }
    }
  }
  // Explicit counts of the pools this file configures; 0 (= one per CPU)
  // and pools whose socket systemd passes are checked by the master, which
  // knows both (fcgi/master.cpp).
  const int total = server.workers + (server.hashing_socket.empty() ? 0 : server.hashing_workers) +
                    (server.outbound_socket.empty() ? 0 : server.outbound_workers);
  if (total > kMaxWorkers) {
    throw ConfigError("configuration key [server] workers: " + std::to_string(total) +
                      " workers in all pools, at most " + std::to_string(kMaxWorkers) +
                      " (every worker needs a slot of the outbound cap, twice during a reload)");
  }
}

}  // namespace svc::config
