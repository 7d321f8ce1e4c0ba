#include "db/database.hpp"

#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>
#include <mysql_driver.h>

#include "metrics/metrics.hpp"

namespace svc::db {
namespace {

// Client error codes for a connection that is gone (CR_SERVER_GONE_ERROR,
// CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED, CR_CONN_HOST_ERROR...).
bool is_connection_lost(int code) {
  return code == 2006 || code == 2013 || code == 2055 || code == 2002 || code == 2003;
}

}  // namespace

Database::Database(config::DbSettings settings) : settings_(std::move(settings)) {}

Database::~Database() {
  statements_.clear();
  conn_.reset();
}

sql::Connection& Database::connection() {
  if (conn_) return *conn_;
  sql::ConnectOptionsMap opts;
  if (!settings_.socket.empty()) {
    opts["hostName"] = sql::SQLString("localhost");
    opts["socket"] = sql::SQLString(settings_.socket);
  } else {
    opts["hostName"] = sql::SQLString("tcp://" + settings_.host + ":" + std::to_string(settings_.port));
  }
  opts["userName"] = sql::SQLString(settings_.user);
  opts["password"] = sql::SQLString(settings_.password);
  opts["schema"] = sql::SQLString(settings_.name);
  opts["OPT_CONNECT_TIMEOUT"] = settings_.connect_timeout;
  opts["OPT_READ_TIMEOUT"] = 30;
  opts["OPT_WRITE_TIMEOUT"] = 30;
  opts["OPT_RECONNECT"] = false;
  opts["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
  try {
    conn_.reset(sql::mysql::get_mysql_driver_instance()->connect(opts));
    std::unique_ptr<sql::Statement> st(conn_->createStatement());
    st->execute("SET SESSION time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION'");
  } catch (const sql::SQLException& e) {
    conn_.reset();
    metrics::count(metrics::Counter::kDbConnectFailures);
    // The message names host/socket and the error, never the password.
    throw DbUnavailable(std::string("database connection failed: ") + e.what());
  }
  if (connected_before_) metrics::count(metrics::Counter::kDbReconnects);
  connected_before_ = true;
  return *conn_;
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

bool Database::retryable(const std::exception& e) const {
  if (in_transaction_) return false;
  if (auto* se = dynamic_cast<const sql::SQLException*>(&e)) return is_connection_lost(se->getErrorCode());
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
  conn_->commit();
}

void Database::rollback() {
  in_transaction_ = false;
  if (!conn_) return;
  try {
    conn_->rollback();
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
