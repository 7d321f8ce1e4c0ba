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

// Thrown by a repository inside a transaction when a conditional write
// found its rows taken by someone else (e.g. another sender's claim that a
// Galera node applied meanwhile). Like a deadlock, nothing of the
// transaction is committed: with_transaction_retry runs it again.
struct TransactionConflict : std::runtime_error {
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
  // Outside a transaction, an answer that says the statement did not run
  // (1047: the Galera node is not ready; 1213: the statement was rolled
  // back as a deadlock or certification loser) is retried once whatever
  // `retry` says, after a reconnect for 1047 (to another node).
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
      switch (failure_kind(e)) {
        case Failure::kOther:
          throw;
        case Failure::kNotRun:
          break;
        case Failure::kLost:
          if (retry == Retry::kNever) {
            reset();  // the next statement starts on a new connection
            throw;
          }
          reset();
          break;
      }
    }
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

  // After a failure inside a transaction (the transaction is over, the
  // Transaction guard rolled it back): true when nothing of it can have
  // been committed, so running it again is safe. That holds for a deadlock
  // or Galera certification failure (1213), a node that is not ready
  // (1047), a TransactionConflict, and a lost connection that was not
  // during COMMIT. Drops the connection when the node is the problem, so
  // the next attempt connects (to the next node in [database] hosts).
  bool transaction_may_rerun(const std::exception& e);

  // Whether the server runs Galera (wsrep_on), as found on connect.
  bool galera() const { return galera_; }

 private:
  enum class Failure { kOther, kNotRun, kLost };
  // kNotRun: the server refused or rolled back the statement (1047, or 1213
  // outside a transaction), so it may run again; the connection is dropped
  // for 1047. kLost: the connection was lost outside a transaction.
  Failure failure_kind(const std::exception& e);
  // Drops the connection and holds its node off (kNodeHoldOffSeconds).
  void forget_node();
  sql::Connection& connection();
  std::unique_ptr<sql::Connection> connect_node(std::size_t index);
  sql::PreparedStatement& statement(const std::string& sql);
  sql::PreparedStatement& prepared(const std::string& sql);
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
  // A node that failed is tried after the others for this long (per worker),
  // so a dead node costs one connect timeout, not one per reconnect.
  static constexpr int kNodeHoldOffSeconds = 10;

  config::DbSettings settings_;
  std::unique_ptr<sql::Connection> conn_;
  std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> statements_;
  bool in_transaction_ = false;
  bool connected_before_ = false;                      // a later connect counts as a reconnect (metrics)
  std::chrono::steady_clock::time_point last_used_{};  // when statement() was last asked for
  bool galera_ = false;                                // the connected node has wsrep_on
  bool commit_sent_ = false;                           // a COMMIT was sent and its answer not yet seen
  std::size_t node_ = 0;                               // index in settings_.nodes() of the connection
  std::vector<std::chrono::steady_clock::time_point> node_failed_at_;
};

// Logs and counts one re-run of a transaction (with_transaction_retry).
void note_transaction_retry(int attempt, const std::exception& e);

// Runs fn(), which opens a Transaction on `db` and commits it (or returns
// early, rolling back), and runs it again, whole, when it fails in a way
// that left nothing committed (Database::transaction_may_rerun: a Galera
// certification failure or deadlock, 1213; a node not ready, 1047; a
// connection lost before COMMIT): at most [database] transaction_attempts
// runs, each retry logged (db_transaction_retry) and counted; then the last
// error propagates. Returns what fn returns.
// REQUIRES: fn has no effect outside the database before its commit that
// would be wrong to repeat (hash, render and look up before or inside it,
// send mail and audit after it). Inside an open transaction (a nested
// call) fn runs once: the outermost call is the one that may re-run.
template <class Fn>
auto with_transaction_retry(Database& db, Fn&& fn) -> decltype(fn()) {
  if (db.in_transaction()) return fn();
  for (int attempt = 1;; ++attempt) {
    try {
      return fn();
    } catch (const std::exception& e) {
      if (attempt >= db.settings().transaction_attempts || !db.transaction_may_rerun(e)) throw;
      note_transaction_retry(attempt, e);
    }
  }
}

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
