#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include "config/config.hpp"

namespace sql {
class Connection;
}

namespace svc::db {

// Thrown when no connection can be made; the dispatcher turns it into a 500
// with the generic message (and /health into 503).
struct DbUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One MySQL/MariaDB connection (Connector/C++ 1.1) with a cache of prepared
// statements. Owned by one worker process; not thread-safe, not fork-safe:
// create it after fork. Connects lazily on first use. SQL lives only in db/.
class Database {
 public:
  explicit Database(config::DbSettings settings);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs fn(sql::PreparedStatement&) on the cached statement for `sql` and
  // returns its result. When the server connection was lost and no
  // transaction is open, reconnects and runs fn once more.
  template <class Fn>
  auto with(const std::string& sql, Fn&& fn) -> decltype(fn(std::declval<sql::PreparedStatement&>())) {
    try {
      return fn(statement(sql));
    } catch (const std::exception& e) {
      if (!retryable(e)) throw;
    }
    reset();
    return fn(statement(sql));
  }

  // A statement that is not cached (for SQL text that varies per request,
  // i.e. admin-approved merge queries). The caller owns it.
  std::unique_ptr<sql::PreparedStatement> prepare_uncached(const std::string& sql);

  // START TRANSACTION READ ONLY; end it with rollback().
  void begin_read_only();

  // True when the server answers a trivial query (reconnecting if needed).
  bool ping();

  void begin();
  void commit();
  void rollback();
  bool in_transaction() const { return in_transaction_; }

  // Runs trusted SQL text without parameters (migrations, session setup).
  // Never call it with anything derived from a request.
  void execute_trusted(const std::string& sql);

  long long last_insert_id();

  // Drops the connection and every prepared statement; the next call reconnects.
  void reset();

  const config::DbSettings& settings() const { return settings_; }

 private:
  sql::Connection& connection();
  sql::PreparedStatement& statement(const std::string& sql);
  bool retryable(const std::exception& e) const;

  config::DbSettings settings_;
  std::unique_ptr<sql::Connection> conn_;
  std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> statements_;
  bool in_transaction_ = false;
};

// Rolls back unless commit() was called. REQUIRES: no transaction open.
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) { db_.begin(); }
  ~Transaction() {
    if (!done_) {
      try {
        db_.rollback();
      } catch (...) {
      }
    }
  }
  void commit() {
    db_.commit();
    done_ = true;
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  Database& db_;
  bool done_ = false;
};

// Result-set helpers: a NULL column reads as the empty string / zero.
std::string column_string(sql::ResultSet& rs, const char* column);
long long column_int(sql::ResultSet& rs, const char* column);

// Reads the columns of the current row in SELECT-list order, by index (a
// lookup by name costs Connector/C++ an upper-casing search per column, which
// showed in profiles of the hot lookups). NULL reads as "" / 0.
class RowReader {
 public:
  explicit RowReader(sql::ResultSet& rs) : rs_(rs) {}
  std::string text() {
    unsigned i = next_++;
    return rs_.isNull(i) ? std::string() : std::string(rs_.getString(i));
  }
  long long integer() {
    unsigned i = next_++;
    return rs_.isNull(i) ? 0 : static_cast<long long>(rs_.getInt64(i));
  }
  bool flag() { return integer() != 0; }

 private:
  sql::ResultSet& rs_;
  unsigned next_ = 1;
};

// Runs a query statement and returns its result set.
inline std::unique_ptr<sql::ResultSet> query(sql::PreparedStatement& st) {
  return std::unique_ptr<sql::ResultSet>(st.executeQuery());
}

}  // namespace svc::db
