#include "db/database.hpp"

#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>

#include "core/log.hpp"
#include "db/node_connect.hpp"
#include "db/sql_codes.hpp"
#include "metrics/metrics.hpp"

namespace svc::db {

Database::Database(config::DbSettings settings) : settings_(std::move(settings)) {}

Database::~Database() {
  statements_.clear();
  conn_.reset();
}

// The nodes in NodeChoice's order; the first that connects and is ready wins.
sql::Connection& Database::connection() {
  if (conn_) return *conn_;
  const auto& nodes = settings_.nodes();
  std::string last_error;
  for (std::size_t i : nodes_.order(nodes.size(), std::chrono::steady_clock::now())) {
    NodeConnection node;
    try {
      node = connect_node(settings_, nodes.at(i));
    } catch (const DbUnavailable& e) {
      last_error = e.what();
      nodes_.failed(i, std::chrono::steady_clock::now());
      metrics::count(metrics::Counter::kDbConnectFailures);
      if (nodes.size() > 1) {
        metrics::count(metrics::Counter::kDbNodeSkipped);
        core::LogLine("warn", "db_node_skipped").str("error", last_error).emit();
      }
      continue;
    }
    conn_ = std::move(node.conn);
    galera_ = node.galera;
    node_ = i;
    nodes_.succeeded(i);
    if (connected_before_) metrics::count(metrics::Counter::kDbReconnects);
    connected_before_ = true;
    return *conn_;
  }
  throw DbUnavailable(nodes.size() > 1 ? "no database node ready; last: " + last_error : last_error);
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
  if (code == kDeadlock || code == kQueryInterrupted) return Failure::kNotRun;
  return is_connection_lost(code) ? Failure::kLost : Failure::kOther;
}

void Database::forget_node() {
  if (connected_before_) nodes_.failed(node_, std::chrono::steady_clock::now());
  reset();
}

bool Database::transaction_may_rerun(const std::exception& e) {
  if (dynamic_cast<const TransactionConflict*>(&e)) return true;
  const int code = sql_code(e);
  const bool during_commit = commit_sent_;
  commit_sent_ = false;
  if (code == kDeadlock || code == kQueryInterrupted) return true;
  if (code == kNodeNotReady || (is_connection_lost(code) && !during_commit)) {
    // A node that went away or out of the Primary component: the next run
    // connects to another one.
    forget_node();
    return true;
  }
  return false;
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
