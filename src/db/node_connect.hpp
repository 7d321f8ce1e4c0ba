#pragma once
// Opening a connection to one database node: options and TLS, the Galera
// readiness check, the session settings.

#include <memory>

#include "config/config.hpp"

namespace sql {
class Connection;
}

namespace svc::db {

struct NodeConnection {
  std::unique_ptr<sql::Connection> conn;
  bool galera = false;  // the node has wsrep_on
};

// Connects to `node` with `settings` (user, schema, timeouts, TLS enforced
// once ssl_ca is set), checks that it is ready (Synced and Primary when it
// runs Galera) and sets the session up (UTC, strict SQL mode, and
// wsrep_sync_wait on a Galera node). Throws DbUnavailable naming the node
// and the error, never the password.
NodeConnection connect_node(const config::DbSettings& settings, const config::HostPort& node);

}  // namespace svc::db
