#include "db/database.hpp"

#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>
#include <mysql_driver.h>

#include <random>
#include <thread>

#include "core/log.hpp"
#include "metrics/metrics.hpp"

namespace svc::db {
namespace {

// Client error codes for a connection that is gone (CR_SERVER_GONE_ERROR,
// CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED, CR_CONN_HOST_ERROR...).
bool is_connection_lost(int code) {
  return code == 2006 || code == 2013 || code == 2055 || code == 2002 || code == 2003;
}

// ER_LOCK_DEADLOCK: InnoDB chose this transaction as a deadlock victim, or
// Galera aborted it (certification failure, or a replicated write that
// needed its locks). Either way the transaction was rolled back whole.
constexpr int kDeadlock = 1213;
// ER_UNKNOWN_COM_ERROR as Galera uses it: "WSREP has not yet prepared node
// for application use" (not Synced, or not in the Primary component). The
// statement did not run.
constexpr int kNodeNotReady = 1047;
// ER_UNKNOWN_SYSTEM_VARIABLE: the server has no wsrep_on (not a Galera build).
constexpr int kUnknownVariable = 1193;

int sql_code(const std::exception& e) {
  auto* se = dynamic_cast<const sql::SQLException*>(&e);
  return se ? se->getErrorCode() : 0;
}

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

}  // namespace

Database::Database(config::DbSettings settings) : settings_(std::move(settings)) {}

Database::~Database() {
  statements_.clear();
  conn_.reset();
}

// One node: connect, check it is ready (Synced and Primary when it runs
// Galera), set up the session. Throws DbUnavailable with the reason.
std::unique_ptr<sql::Connection> Database::connect_node(std::size_t index) {
  const config::HostPort node = settings_.nodes().at(index);
  sql::ConnectOptionsMap opts;
  if (node.port == 0) {  // a unix socket path
    opts["hostName"] = sql::SQLString("localhost");
    opts["socket"] = sql::SQLString(node.host);
  } else {
    const bool v6 = node.host.find(':') != std::string::npos;
    opts["hostName"] =
        sql::SQLString("tcp://" + (v6 ? "[" + node.host + "]" : node.host) + ":" + std::to_string(node.port));
  }
  opts["userName"] = sql::SQLString(settings_.user);
  opts["password"] = sql::SQLString(settings_.password);
  opts["schema"] = sql::SQLString(settings_.name);
  opts["OPT_CONNECT_TIMEOUT"] = settings_.connect_timeout;
  opts["OPT_READ_TIMEOUT"] = 30;
  opts["OPT_WRITE_TIMEOUT"] = 30;
  opts["OPT_RECONNECT"] = false;
  opts["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
  if (settings_.tls()) {
    // Enforced: a server (or a man in the middle) that does not offer TLS
    // gets no password and no query. Connector/C++ 1.1 over MariaDB
    // Connector/C maps sslEnforce to MYSQL_OPT_SSL_ENFORCE and sslVerify to
    // MYSQL_OPT_SSL_VERIFY_SERVER_CERT (certificate chain and host name).
    opts["sslCA"] = sql::SQLString(settings_.ssl_ca);
    if (!settings_.ssl_cert.empty()) {
      opts["sslCert"] = sql::SQLString(settings_.ssl_cert);
      opts["sslKey"] = sql::SQLString(settings_.ssl_key);
    }
    opts["sslEnforce"] = true;
    opts["sslVerify"] = settings_.ssl_verify;
  }
  std::unique_ptr<sql::Connection> conn;
  try {
    conn.reset(sql::mysql::get_mysql_driver_instance()->connect(opts));
    const NodeState state = node_state(*conn);
    if (!state.not_ready.empty()) throw DbUnavailable("node not ready: " + state.not_ready);
    galera_ = state.galera;
    std::string setup =
        "SET SESSION time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION'";
    // Only a Galera node knows the variable worth setting; on a plain
    // server there is nothing to wait for.
    if (galera_) setup += std::string(", wsrep_sync_wait = ") + sync_wait_value(settings_.sync_wait);
    std::unique_ptr<sql::Statement> st(conn->createStatement());
    st->execute(setup);
  } catch (const sql::SQLException& e) {
    // The message names host/socket and the error, never the password.
    throw DbUnavailable(std::string("database connection failed: ") + node_label(node) + ": " + e.what());
  } catch (const DbUnavailable& e) {
    throw DbUnavailable(std::string("database connection failed: ") + node_label(node) + ": " + e.what());
  }
  return conn;
}

// Every worker tries the nodes in the order written, so they all write to
// the first ready node and Galera certification conflicts stay rare; a node
// that failed in the last kNodeHoldOffSeconds goes to the back of the line.
sql::Connection& Database::connection() {
  if (conn_) return *conn_;
  const std::size_t count = settings_.nodes().size();
  node_failed_at_.resize(count);
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::size_t> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < count; ++i) {
      const bool held_off = node_failed_at_[i] != std::chrono::steady_clock::time_point{} &&
                            now - node_failed_at_[i] < std::chrono::seconds(kNodeHoldOffSeconds);
      if (held_off == (pass == 1)) order.push_back(i);
    }
  }
  std::string last_error;
  for (std::size_t i : order) {
    try {
      conn_ = connect_node(i);
    } catch (const DbUnavailable& e) {
      last_error = e.what();
      node_failed_at_[i] = std::chrono::steady_clock::now();
      metrics::count(metrics::Counter::kDbConnectFailures);
      if (count > 1) {
        metrics::count(metrics::Counter::kDbNodeSkipped);
        core::LogLine("warn", "db_node_skipped").str("error", last_error).emit();
      }
      continue;
    }
    node_ = i;
    node_failed_at_[i] = {};
    if (connected_before_) metrics::count(metrics::Counter::kDbReconnects);
    connected_before_ = true;
    return *conn_;
  }
  throw DbUnavailable(count > 1 ? "no database node ready; last: " + last_error : last_error);
}

sql::PreparedStatement& Database::statement(const std::string& sql) {
  last_used_ = std::chrono::steady_clock::now();
  auto it = statements_.find(sql);
  if (it != statements_.end()) return *it->second;
  std::unique_ptr<sql::PreparedStatement> st(connection().prepareStatement(sql));
  return *statements_.emplace(sql, std::move(st)).first->second;
}

// Preparing runs nothing on the server's data, so a prepare that finds the
// connection gone may always be repeated on a new one; only a statement that
// was sent may have taken effect.
sql::PreparedStatement& Database::prepared(const std::string& sql) {
  try {
    return statement(sql);
  } catch (const sql::SQLException& e) {
    if (in_transaction_ || !is_connection_lost(e.getErrorCode())) throw;
  }
  reset();
  return statement(sql);
}

std::unique_ptr<sql::PreparedStatement> Database::prepare_uncached(const std::string& sql) {
  return std::unique_ptr<sql::PreparedStatement>(connection().prepareStatement(sql));
}

void Database::begin_read_only() {
  if (in_transaction_) throw std::logic_error("nested transaction");
  execute_trusted("START TRANSACTION READ ONLY");
  in_transaction_ = true;
}

Database::Failure Database::failure_kind(const std::exception& e) {
  if (in_transaction_) return Failure::kOther;
  const int code = sql_code(e);
  if (code == kNodeNotReady) {
    forget_node();
    return Failure::kNotRun;
  }
  if (code == kDeadlock) return Failure::kNotRun;
  return is_connection_lost(code) ? Failure::kLost : Failure::kOther;
}

void Database::forget_node() {
  if (connected_before_ && node_ < node_failed_at_.size()) node_failed_at_[node_] = std::chrono::steady_clock::now();
  reset();
}

bool Database::transaction_may_rerun(const std::exception& e) {
  if (dynamic_cast<const TransactionConflict*>(&e)) return true;
  const int code = sql_code(e);
  const bool during_commit = commit_sent_;
  commit_sent_ = false;
  if (code == kDeadlock) return true;
  if (code == kNodeNotReady || (is_connection_lost(code) && !during_commit)) {
    // A node that went away or out of the Primary component: the next run
    // connects to another one.
    forget_node();
    return true;
  }
  return false;
}

// Two writers that lost to each other once tend to meet again (two senders
// both claim the oldest due rows): a random pause of up to 10 ms per attempt
// so far lets one of them go first.
void note_transaction_retry(int attempt, const std::exception& e) {
  metrics::count(metrics::Counter::kDbTxnRetries);
  core::LogLine("warn", "db_transaction_retry").num("attempt", attempt).str("error", e.what()).emit();
  thread_local std::minstd_rand jitter(std::random_device{}());
  std::uniform_int_distribution<int> pause_us(0, 10000 * attempt);
  std::this_thread::sleep_for(std::chrono::microseconds(pause_us(jitter)));
}

// A write is never re-run after a lost connection, so find a connection the
// server closed while we idled (wait_timeout, a server restart) before
// sending one. Inside a transaction the earlier statements already checked.
void Database::refresh_if_idle() {
  if (!conn_ || in_transaction_) return;
  if (std::chrono::steady_clock::now() - last_used_ < std::chrono::seconds(kIdleCheckSeconds)) return;
  ping();
}

void Database::reset() {
  statements_.clear();
  conn_.reset();
  in_transaction_ = false;
}

bool Database::ping() {
  try {
    return one("SELECT 1", kNoParams, [](RowReader& r) { return r.integer(); }) == 1;
  } catch (const std::exception&) {
    reset();
    return false;
  }
}

void Database::begin() {
  if (in_transaction_) throw std::logic_error("nested transaction");
  commit_sent_ = false;
  // One statement (autocommit stays on outside transactions). A lost
  // connection is found here, before any work, so retry once.
  try {
    execute_trusted("START TRANSACTION");
  } catch (const sql::SQLException& e) {
    if (!is_connection_lost(e.getErrorCode())) throw;
    reset();
    execute_trusted("START TRANSACTION");
  }
  in_transaction_ = true;
}

void Database::commit() {
  in_transaction_ = false;
  // A connection lost while COMMIT is in flight leaves the outcome unknown:
  // transaction_may_rerun must not run such a transaction again.
  commit_sent_ = true;
  // The statement, not Connection::commit(): Connector/C++ 1.1's commit()
  // ignores the server's answer, so a COMMIT that failed certification on
  // Galera (1213) or met a dead connection read as committed (found by two
  // senders on two nodes both sending rows whose claim one of them lost).
  // Never on a new connection: that would "commit" an empty transaction.
  if (!conn_) throw DbUnavailable("database connection lost before COMMIT");
  std::unique_ptr<sql::Statement> st(conn_->createStatement());
  st->execute("COMMIT");
  commit_sent_ = false;
}

void Database::rollback() {
  in_transaction_ = false;
  if (!conn_) return;
  try {
    execute_trusted("ROLLBACK");
  } catch (const sql::SQLException&) {
    reset();
  }
}

void Database::execute_trusted(const std::string& sql) {
  std::unique_ptr<sql::Statement> st(connection().createStatement());
  st->execute(sql);
  // Drain any result sets so the connection stays usable.
  do {
    std::unique_ptr<sql::ResultSet> rs(st->getResultSet());
  } while (st->getMoreResults());
}

long long Database::last_insert_id() {
  // The function always returns one row. Not retried: on a new connection
  // it would answer 0.
  return with("SELECT LAST_INSERT_ID()", [](sql::PreparedStatement& st) {
    auto rs = query(st);
    return rs->next() ? static_cast<long long>(rs->getInt64(1)) : 0LL;
  });
}

}  // namespace svc::db
