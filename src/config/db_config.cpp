#include "config/db_config.hpp"

#include <utility>

#include "config/reader.hpp"

namespace svc::config {
namespace {

// [database] hosts: "host:port, host:port, ..." (a port left out is `port`).
void read_db_hosts(Reader& r, const std::string& s, DbSettings& db) {
  std::vector<std::string> items;
  r.list(s + ".hosts", items);
  for (const auto& item : items) {
    auto node = parse_host_port(item, db.port);
    if (!node) {
      throw ConfigError("configuration key " + Reader::label(s + ".hosts") + ": '" + item +
                        "' is not host, host:port or [IPv6]:port");
    }
    db.hosts.push_back(*node);
  }
  if (!db.hosts.empty() && !db.socket.empty()) {
    throw ConfigError("configuration key " + Reader::label(s + ".hosts") + ": set either socket or hosts, not both");
  }
}

// [database] ssl_*: absolute paths; a client certificate needs its key and
// a CA to check the server with (TLS is on exactly when ssl_ca is set).
void read_db_tls(Reader& r, const std::string& s, DbSettings& db) {
  const std::pair<const char*, std::string*> paths[] = {
      {".ssl_ca", &db.ssl_ca}, {".ssl_cert", &db.ssl_cert}, {".ssl_key", &db.ssl_key}};
  for (const auto& [key, out] : paths) {
    r.str(s + key, *out);
    if (!out->empty() && out->front() != '/') {
      throw ConfigError("configuration key " + Reader::label(s + key) + ": expected an absolute path, got '" + *out +
                        "'");
    }
  }
  r.boolean(s + ".ssl_verify", db.ssl_verify);
  if (db.ssl_cert.empty() != db.ssl_key.empty()) {
    throw ConfigError("configuration key " + Reader::label(s + (db.ssl_cert.empty() ? ".ssl_cert" : ".ssl_key")) +
                      ": ssl_cert and ssl_key go together (a client certificate and its key)");
  }
  if (!db.tls() && (!db.ssl_cert.empty() || !db.ssl_verify)) {
    throw ConfigError("configuration key " + Reader::label(s + ".ssl_ca") +
                      ": required with ssl_cert or ssl_verify (TLS to the database is on exactly when ssl_ca is set)");
  }
}

// One account's section `s` ("database" or "database.merge").
void read_db(Reader& r, const std::string& s, DbSettings& db) {
  r.str(s + ".host", db.host);
  r.integer(s + ".port", db.port, 1, 65535);
  r.str(s + ".socket", db.socket);
  r.str(s + ".user", db.user);
  r.str(s + ".password", db.password);
  r.str(s + ".name", db.name);
  r.integer(s + ".connect_timeout", db.connect_timeout, 1, 300);
  read_db_hosts(r, s, db);
  std::string sync_wait = "reads_writes";
  r.one_of(s + ".sync_wait", sync_wait, {"reads_writes", "reads", "off"});
  db.sync_wait = sync_wait == "off" ? SyncWait::kOff : sync_wait == "reads" ? SyncWait::kReads : SyncWait::kReadsWrites;
  r.integer(s + ".transaction_attempts", db.transaction_attempts, 1, 20);
  read_db_tls(r, s, db);
}

}  // namespace

void read_databases(Reader& r, DbSettings& database, DbSettings& merge) {
  read_db(r, "database", database);
  if (!database.configured()) r.required("database.user", database.user);
  read_db(r, "database.merge", merge);
  r.integer("database.merge.statement_timeout_ms", merge.statement_timeout_ms, 1, 600000);
}

}  // namespace svc::config
