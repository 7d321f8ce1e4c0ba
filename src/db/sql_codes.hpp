#pragma once
// The server and client error codes db/ decides on, in one place.

#include <exception>

namespace svc::db {

// ER_LOCK_DEADLOCK: InnoDB chose this transaction as a deadlock victim, or
// Galera aborted it (certification failure, or a replicated write that
// needed its locks). Either way the transaction was rolled back whole.
inline constexpr int kDeadlock = 1213;
// ER_QUERY_INTERRUPTED: the statement was stopped and rolled back, by KILL
// QUERY or by Galera aborting it for a replicated DDL that needed its
// metadata lock (a migration under load, make test-cluster).
inline constexpr int kQueryInterrupted = 1317;
// ER_UNKNOWN_COM_ERROR as Galera uses it: "WSREP has not yet prepared node
// for application use" (not Synced, or not in the Primary component). The
// statement did not run.
inline constexpr int kNodeNotReady = 1047;
// ER_UNKNOWN_SYSTEM_VARIABLE: the server has no wsrep_on (not a Galera build).
inline constexpr int kUnknownVariable = 1193;
// ER_SERVER_SHUTDOWN: the server is going away.
inline constexpr int kServerShutdown = 1053;

// Client error codes for a connection that is gone or cannot be made
// (CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR,
// CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED, and CR_SSL_CONNECTION_ERROR:
// over TLS, a server that died mid-session shows as "TLS/SSL error:
// Connection reset by peer" or "unexpected eof while reading", 2026, on the
// next statement of a connection that sat idle through it).
inline bool is_connection_lost(int code) {
  return code == 2006 || code == 2013 || code == 2055 || code == 2002 || code == 2003 || code == 2026;
}

// The error code of a Connector/C++ exception; 0 for any other exception.
int sql_code(const std::exception& e);

}  // namespace svc::db
