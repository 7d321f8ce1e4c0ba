#pragma once
// [database] (the service's account) and [database.merge] (a read-only
// account for raw SQL merge fields): where the MariaDB/Galera nodes are,
// how to log in, TLS, and the session and retry rules. Every key is
// documented in docs/configuration.md with its default.

#include <string>
#include <vector>

#include "config/net.hpp"

namespace svc::config {

class Reader;

// wsrep_sync_wait for the session on a Galera node (never sent to a server
// with wsrep off): off = 0, reads = 1 (SELECT, SHOW, START TRANSACTION),
// reads_writes = 7 (also UPDATE, DELETE, INSERT, REPLACE).
enum class SyncWait { kOff, kReads, kReadsWrites };

struct DbSettings {
  std::string host = "localhost";
  int port = 3306;
  std::string socket;  // unix socket path; used instead of host:port when set
  std::string user;
  std::string password;
  std::string name = "svc";
  int connect_timeout = 5;
  int statement_timeout_ms = 2000;  // [database.merge] only
  // [database] hosts: Galera (or any) nodes tried in order; an entry that
  // is an absolute path is a unix socket (port 0). Empty = the one node
  // socket, else host:port. Never set together with socket.
  std::vector<HostPort> hosts;
  SyncWait sync_wait = SyncWait::kReadsWrites;
  // How many times a whole write transaction runs when the server answers
  // deadlock / certification failure (1213) or "node not ready" (1047).
  int transaction_attempts = 4;
  // TLS to the server (Connector/C++ sslCA, sslCert, sslKey, sslVerify,
  // sslEnforce): on when ssl_ca is set, and then required (a server that
  // does not speak TLS is refused). ssl_cert/ssl_key: a client certificate,
  // both or neither. ssl_verify = false keeps TLS but skips the check of the
  // server's certificate and name.
  std::string ssl_ca;
  std::string ssl_cert;
  std::string ssl_key;
  bool ssl_verify = true;
  bool tls() const { return !ssl_ca.empty(); }
  bool configured() const { return !user.empty(); }
  // The nodes to try, in order: `hosts`; else socket (as {path, 0}); else host:port.
  std::vector<HostPort> nodes() const {
    if (!hosts.empty()) return hosts;
    if (!socket.empty()) return {{socket, 0}};
    return {{host, port}};
  }
};

// Reads and checks [database] (user required) and the optional
// [database.merge]; throws ConfigError naming the first bad key.
void read_databases(Reader& r, DbSettings& database, DbSettings& merge);

}  // namespace svc::config
