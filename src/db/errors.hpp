#pragma once
// The two exceptions of db/ that callers above it act on.

#include <stdexcept>

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

}  // namespace svc::db
