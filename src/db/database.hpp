#pragma once
// The connection of one worker: statements, their retry rules, transactions'
// begin/commit/rollback. Its parts live beside it: reading rows
// (row_reader.hpp), binding parameters (params.hpp), the errors
// (errors.hpp), which node to connect to (node_choice.hpp, node_connect.hpp),
// and the transaction guard and re-run (transaction.hpp).

#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "db/errors.hpp"
#include "db/node_choice.hpp"
#include "db/params.hpp"
#include "db/row_reader.hpp"

namespace sql {
class Connection;
}

namespace svc::db {

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
  // back as a deadlock or certification loser; 1317: it was interrupted,
  // and rolled back, by KILL QUERY or a replicated DDL) is retried once whatever
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
    return first_row(sql, bind, read, Retry::kIdempotent);
  }

  // take: the first row a write returns (DELETE ... RETURNING), nullopt
  // when it returned none. Not re-run after a lost connection, as execute().
  template <class Bind, class Read>
  auto take(const std::string& sql, Bind&& bind, Read&& read) -> std::optional<RowOf<Read>> {
    return first_row(sql, bind, read, Retry::kNever);
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
  // or Galera certification failure (1213), an interrupted statement
  // (1317), a node that is not ready
  // (1047), a TransactionConflict, and a lost connection that was not
  // during COMMIT. Drops the connection when the node is the problem, so
  // the next attempt connects (to the next node in [database] hosts).
  bool transaction_may_rerun(const std::exception& e);

  // Whether the server runs Galera (wsrep_on), as found on connect.
  bool galera() const { return galera_; }

 private:
  enum class Failure { kOther, kNotRun, kLost };
  // kNotRun: the server refused or rolled back the statement (1047, or 1213
  // or 1317 outside a transaction), so it may run again; the connection is dropped
  // for 1047. kLost: the connection was lost outside a transaction.
  Failure failure_kind(const std::exception& e);
  // Drops the connection and holds its node off (NodeChoice::kHoldOffSeconds).
  void forget_node();
  sql::Connection& connection();
  sql::PreparedStatement& statement(const std::string& sql);
  sql::PreparedStatement& prepared(const std::string& sql);
  void refresh_if_idle();

  template <class Bind, class Read>
  auto first_row(const std::string& sql, Bind& bind, Read& read, Retry retry) -> std::optional<RowOf<Read>> {
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
        retry);
  }

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
  bool galera_ = false;                                // the connected node has wsrep_on
  bool commit_sent_ = false;                           // a COMMIT was sent and its answer not yet seen
  std::size_t node_ = 0;                               // index in settings_.nodes() of the connection
  NodeChoice nodes_;
};

}  // namespace svc::db
