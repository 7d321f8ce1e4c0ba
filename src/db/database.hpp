#pragma once

#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

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

// Reads the columns of the current row in SELECT-list order, by index (a
// lookup by name costs Connector/C++ an upper-casing search per column, which
// showed in profiles of the hot lookups). NULL reads as "" / 0. One reader
// per row: it starts at the first column.
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

// Binds the `?` placeholders of a statement left to right, the mirror of
// RowReader. int binds as INT and long long as BIGINT, as the caller's type
// says; a bool binds as 0/1.
class Params {
 public:
  explicit Params(sql::PreparedStatement& st) : st_(st) {}
  Params& text(const std::string& value) {
    st_.setString(next_++, value);
    return *this;
  }
  Params& integer(int value) {
    st_.setInt(next_++, value);
    return *this;
  }
  Params& integer(long long value) {
    st_.setInt64(next_++, value);
    return *this;
  }
  Params& flag(bool value) { return integer(value ? 1 : 0); }
  Params& null() {
    st_.setNull(next_++, 0);
    return *this;
  }
  // NULL for "", the text otherwise (optional text columns).
  Params& text_or_null(const std::string& value) { return value.empty() ? null() : text(value); }
  // NULL for an id <= 0, the id otherwise (optional references: 0 = none).
  Params& id_or_null(long long id) { return id > 0 ? integer(id) : null(); }

 private:
  sql::PreparedStatement& st_;
  unsigned next_ = 1;
};

// The value type a row reader returns.
template <class Read>
using RowOf = std::remove_cvref_t<std::invoke_result_t<Read&, RowReader&>>;

// The binder for a statement without placeholders.
inline constexpr auto kNoParams = [](Params&) {};

// Runs a query statement and returns its result set.
inline std::unique_ptr<sql::ResultSet> query(sql::PreparedStatement& st) {
  return std::unique_ptr<sql::ResultSet>(st.executeQuery());
}

// One MySQL/MariaDB connection (Connector/C++ 1.1) with a cache of prepared
// statements. Owned by one worker process; not thread-safe, not fork-safe:
// create it after fork. Connects lazily on first use. SQL lives only in db/.
class Database {
 public:
  explicit Database(config::DbSettings settings);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Whether with() may run a statement a second time after the connection
  // was lost. A lost connection does not say whether the server ran (and,
  // under autocommit, committed) the statement before the reply went
  // missing, so only work that is harmless to repeat may be re-run: reads,
  // and writes the caller built to be idempotent (e.g. an INSERT that a
  // unique key turns into a no-op the second time).
  enum class Retry { kNever, kIdempotent };

  // Runs fn(sql::PreparedStatement&) on the cached statement for `sql` and
  // returns its result. When the server connection was lost, no transaction
  // is open and `retry` is kIdempotent, reconnects and runs fn once more;
  // otherwise the error propagates (the work may or may not have happened).
  // A prepare that finds the connection lost is repeated in either case: it
  // runs nothing.
  // Before a kNever statement on a connection idle for more than
  // kIdleCheckSeconds, pings first (reconnecting if needed), so a connection
  // the server dropped while the worker idled costs a reconnect, not an error.
  template <class Fn>
  auto with(const std::string& sql, Fn&& fn, Retry retry = Retry::kNever)
      -> decltype(fn(std::declval<sql::PreparedStatement&>())) {
    if (retry == Retry::kNever) refresh_if_idle();
    try {
      return fn(prepared(sql));
    } catch (const std::exception& e) {
      if (!retryable(e)) throw;
      if (retry == Retry::kNever) {
        reset();  // the next statement starts on a new connection
        throw;
      }
    }
    reset();
    return fn(statement(sql));
  }

  // The statement helpers every repository uses, all through with(). rows()
  // and one() are reads and retry; execute() never retries, and
  // execute_idempotent() is for a write the caller has made safe to repeat.
  // `bind(Params&)` sets the placeholders; `read(RowReader&)` turns one row
  // into a value, reading the columns in SELECT-list order, so keep the
  // SELECT list in the order the reader reads it. When with() retries, bind
  // and read run again from the start, so neither may have
  // effects beyond its arguments. Database errors propagate as
  // sql::SQLException (or DbUnavailable).
  //
  // rows: every row of the result, in result order.
  template <class Bind, class Read>
  auto rows(const std::string& sql, Bind&& bind, Read&& read) -> std::vector<RowOf<Read>> {
    return with(
        sql,
        [&](sql::PreparedStatement& st) {
          Params params(st);
          bind(params);
          auto rs = query(st);
          std::vector<RowOf<Read>> out;
          while (rs->next()) {
            RowReader row(*rs);
            out.push_back(read(row));
          }
          return out;
        },
        Retry::kIdempotent);
  }

  // one: the first row of the result, nullopt when there is none.
  template <class Bind, class Read>
  auto one(const std::string& sql, Bind&& bind, Read&& read) -> std::optional<RowOf<Read>> {
    return with(
        sql,
        [&](sql::PreparedStatement& st) -> std::optional<RowOf<Read>> {
          Params params(st);
          bind(params);
          auto rs = query(st);
          if (!rs->next()) return std::nullopt;
          RowReader row(*rs);
          return read(row);
        },
        Retry::kIdempotent);
  }

  // execute: runs a statement without a result set (INSERT, UPDATE, DELETE,
  // SET) and returns the affected-row count that executeUpdate() reports.
  // Not re-run after a lost connection: the error propagates.
  template <class Bind>
  int execute(const std::string& sql, Bind&& bind) {
    return run_update(sql, bind, Retry::kNever);
  }

  // execute_idempotent: the same, re-run once after a lost connection.
  // REQUIRES: running the statement twice leaves the same rows as running it
  // once (the affected-row count may differ, so the caller must not act on it).
  template <class Bind>
  int execute_idempotent(const std::string& sql, Bind&& bind) {
    return run_update(sql, bind, Retry::kIdempotent);
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

  // The AUTO_INCREMENT id of this connection's last INSERT. Never retried: on
  // a new connection the answer would be 0.
  long long last_insert_id();

  // Drops the connection and every prepared statement; the next call reconnects.
  void reset();

  const config::DbSettings& settings() const { return settings_; }

 private:
  sql::Connection& connection();
  sql::PreparedStatement& statement(const std::string& sql);
  sql::PreparedStatement& prepared(const std::string& sql);
  bool retryable(const std::exception& e) const;
  void refresh_if_idle();
  template <class Bind>
  int run_update(const std::string& sql, Bind& bind, Retry retry) {
    return with(
        sql,
        [&](sql::PreparedStatement& st) {
          Params params(st);
          bind(params);
          return st.executeUpdate();
        },
        retry);
  }

  static constexpr int kIdleCheckSeconds = 30;

  config::DbSettings settings_;
  std::unique_ptr<sql::Connection> conn_;
  std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> statements_;
  bool in_transaction_ = false;
  bool connected_before_ = false;                      // a later connect counts as a reconnect (metrics)
  std::chrono::steady_clock::time_point last_used_{};  // when statement() was last asked for
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

}  // namespace svc::db
