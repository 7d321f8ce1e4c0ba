#include "db/node_connect.hpp"

#include <cppconn/exception.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>
#include <mysql_driver.h>

#include <string>

#include "db/errors.hpp"
#include "db/sql_codes.hpp"

namespace svc::db {
namespace {

// Galera's view of one node, read in one statement on connect. Status
// tables are readable on a node outside the Primary component (it refuses
// only statements on data tables), so a minority node answers "not ready"
// here instead of an error.
struct NodeState {
  bool galera = false;
  std::string not_ready;  // why the node is skipped; "" when ready
};

NodeState node_state(sql::Connection& c) {
  std::unique_ptr<sql::Statement> st(c.createStatement());
  std::unique_ptr<sql::ResultSet> rs;
  try {
    rs.reset(st->executeQuery(
        "SELECT @@wsrep_on,"
        " (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_READY'),"
        " (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_LOCAL_STATE'),"
        " (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_CLUSTER_STATUS')"));
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kUnknownVariable) return {};  // no wsrep at all: a plain server is ready
    throw;
  }
  NodeState state;
  if (!rs->next() || rs->getInt(1) == 0) return state;  // wsrep off: a plain server
  state.galera = true;
  const std::string ready = rs->isNull(2) ? "" : std::string(rs->getString(2));
  const std::string local_state = rs->isNull(3) ? "" : std::string(rs->getString(3));
  const std::string cluster = rs->isNull(4) ? "" : std::string(rs->getString(4));
  if (ready != "ON" || local_state != "4" || cluster != "Primary") {
    state.not_ready = "wsrep_ready=" + ready + " wsrep_local_state=" + local_state + " wsrep_cluster_status=" + cluster;
  }
  return state;
}

const char* sync_wait_value(config::SyncWait w) {
  switch (w) {
    case config::SyncWait::kOff:
      return "0";
    case config::SyncWait::kReads:
      return "1";
    case config::SyncWait::kReadsWrites:
      return "7";
  }
  return "0";
}

std::string node_label(const config::HostPort& node) {
  return node.port == 0 ? node.host : node.host + ":" + std::to_string(node.port);
}

sql::ConnectOptionsMap connect_options(const config::DbSettings& settings, const config::HostPort& node) {
  sql::ConnectOptionsMap opts;
  if (node.port == 0) {  // a unix socket path
    opts["hostName"] = sql::SQLString("localhost");
    opts["socket"] = sql::SQLString(node.host);
  } else {
    const bool v6 = node.host.find(':') != std::string::npos;
    opts["hostName"] =
        sql::SQLString("tcp://" + (v6 ? "[" + node.host + "]" : node.host) + ":" + std::to_string(node.port));
  }
  opts["userName"] = sql::SQLString(settings.user);
  opts["password"] = sql::SQLString(settings.password);
  opts["schema"] = sql::SQLString(settings.name);
  opts["OPT_CONNECT_TIMEOUT"] = settings.connect_timeout;
  opts["OPT_READ_TIMEOUT"] = 30;
  opts["OPT_WRITE_TIMEOUT"] = 30;
  opts["OPT_RECONNECT"] = false;
  opts["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
  if (settings.tls()) {
    // Enforced: a server (or a man in the middle) that does not offer TLS
    // gets no password and no query. Connector/C++ 1.1 over MariaDB
    // Connector/C maps sslEnforce to MYSQL_OPT_SSL_ENFORCE and sslVerify to
    // MYSQL_OPT_SSL_VERIFY_SERVER_CERT (certificate chain and host name).
    opts["sslCA"] = sql::SQLString(settings.ssl_ca);
    if (!settings.ssl_cert.empty()) {
      opts["sslCert"] = sql::SQLString(settings.ssl_cert);
      opts["sslKey"] = sql::SQLString(settings.ssl_key);
    }
    opts["sslEnforce"] = true;
    opts["sslVerify"] = settings.ssl_verify;
  }
  return opts;
}

}  // namespace

NodeConnection connect_node(const config::DbSettings& settings, const config::HostPort& node) {
  sql::ConnectOptionsMap opts = connect_options(settings, node);
  NodeConnection out;
  try {
    out.conn.reset(sql::mysql::get_mysql_driver_instance()->connect(opts));
    const NodeState state = node_state(*out.conn);
    if (!state.not_ready.empty()) throw DbUnavailable("node not ready: " + state.not_ready);
    out.galera = state.galera;
    std::string setup =
        "SET SESSION time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION'";
    // Only a Galera node knows the variable worth setting; on a plain
    // server there is nothing to wait for.
    if (out.galera) setup += std::string(", wsrep_sync_wait = ") + sync_wait_value(settings.sync_wait);
    std::unique_ptr<sql::Statement> st(out.conn->createStatement());
    st->execute(setup);
  } catch (const sql::SQLException& e) {
    // The message names host/socket and the error, never the password.
    throw DbUnavailable(std::string("database connection failed: ") + node_label(node) + ": " + e.what());
  } catch (const DbUnavailable& e) {
    throw DbUnavailable(std::string("database connection failed: ") + node_label(node) + ": " + e.what());
  }
  return out;
}

}  // namespace svc::db
