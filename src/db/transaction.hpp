#pragma once
// Transactions on a Database: the rollback guard and the re-run of a
// transaction that left nothing committed.

#include <exception>

#include "db/database.hpp"

namespace svc::db {

// Logs and counts one re-run of a transaction (with_transaction_retry),
// then pauses 0..10 ms x attempt (random) so two rivals do not meet again.
void note_transaction_retry(int attempt, const std::exception& e);

// Runs fn(), which opens a Transaction on `db` and commits it (or returns
// early, rolling back), and runs it again, whole, when it fails in a way
// that left nothing committed (Database::transaction_may_rerun: a Galera
// certification failure or deadlock, 1213; a node not ready, 1047; a
// connection lost before COMMIT): at most [database] transaction_attempts
// runs, each retry logged (db_transaction_retry), counted and preceded by a
// short random pause; then the last error propagates. Returns what fn returns.
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
