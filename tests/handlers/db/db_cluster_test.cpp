// Database on several nodes (issue 11), against the stack's MariaDB reached
// through paths to its socket: a node list whose first node is dead still
// serves; a worker whose node dies mid-session moves to the next node on its
// next statement; a write transaction that loses a deadlock (what a Galera
// certification failure looks like to the client: error 1213) runs again
// whole, and only as often as [database] transaction_attempts allows.
#include <cppconn/exception.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "db/database.hpp"
#include "db/transaction.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(db_cluster_test)

namespace {

std::string unique_tag(const char* tag) {
  static const std::string run = std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr));
  static int serial = 0;
  return std::string(tag) + "-" + run + "-" + std::to_string(++serial);
}

// The stack's settings with `hosts` as the node list (the socket moves into it).
svc::config::DbSettings with_nodes(const DbFixture& f, std::vector<svc::config::HostPort> nodes) {
  svc::config::DbSettings s = f.config.database;
  s.socket.clear();
  s.hosts = std::move(nodes);
  s.connect_timeout = 1;
  return s;
}

svc::config::HostPort socket_node(const std::string& path) { return {path, 0}; }

long long select_one(svc::db::Database& db) {
  return db.one("SELECT 1", svc::db::kNoParams, [](svc::db::RowReader& r) { return r.integer(); }).value_or(0);
}

long long connection_id(svc::db::Database& db) {
  return db.one("SELECT CONNECTION_ID()", svc::db::kNoParams, [](svc::db::RowReader& r) { return r.integer(); })
      .value_or(0);
}

// A directory holding a symlink to the stack's socket: a "node" the test can
// kill by removing the link.
struct LinkedNode {
  explicit LinkedNode(const std::string& target) {
    dir = fs::temp_directory_path() / unique_tag("svc-node");
    fs::create_directories(dir);
    path = (dir / "mysql.sock").string();
    fs::create_symlink(target, path);
  }
  ~LinkedNode() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void kill() { fs::remove(path); }
  fs::path dir;
  std::string path;
};

bool wait_for(const std::atomic<bool>& flag) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

const std::string kThrottleRow =
    "INSERT INTO svc_login_throttle (auth_table, email, failures, window_start, locked_until) VALUES ('db-cluster', ?,"
    " 0, 0, 0)";
const std::string kBump =
    "UPDATE svc_login_throttle SET failures = failures + ? WHERE auth_table = 'db-cluster' AND email = ?";

long long failures(DbFixture& f, const std::string& email) {
  return f.count("SELECT failures FROM svc_login_throttle WHERE auth_table = 'db-cluster' AND email = '" + email + "'");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_dead_first_node_is_skipped) {
  DbFixture f;
  const std::string stack_socket = f.config.database.socket;
  BOOST_REQUIRE(!stack_socket.empty());
  // Refused at once (nothing listens on port 1), then a socket that does not
  // exist, then the live server.
  svc::db::Database db(
      with_nodes(f, {{"127.0.0.1", 1}, socket_node("/nonexistent/svc-test/mysql.sock"), socket_node(stack_socket)}));
  BOOST_TEST(select_one(db) == 1);
  BOOST_TEST(!db.galera());  // the stack's server runs without wsrep
}

BOOST_AUTO_TEST_CASE(no_live_node_is_db_unavailable_naming_the_last) {
  DbFixture f;
  svc::db::Database db(with_nodes(f, {{"127.0.0.1", 1}, socket_node("/nonexistent/svc-test/mysql.sock")}));
  try {
    select_one(db);
    BOOST_FAIL("no error");
  } catch (const svc::db::DbUnavailable& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("no database node ready") != std::string::npos, what);
    BOOST_TEST(what.find("/nonexistent/svc-test/mysql.sock") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(a_worker_whose_node_dies_moves_to_the_next_one) {
  DbFixture f, killer;
  LinkedNode first(f.config.database.socket);
  LinkedNode second(f.config.database.socket);
  svc::db::Database db(with_nodes(f, {socket_node(first.path), socket_node(second.path)}));
  const long long before = connection_id(db);
  BOOST_REQUIRE_GT(before, 0);
  // The node goes away: its address stops answering and its sessions end.
  first.kill();
  killer.exec("KILL CONNECTION " + std::to_string(before));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (killer.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(before)) > 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // The next statement (a read: run again after the loss) is served by the
  // second node.
  const long long after = connection_id(db);
  BOOST_TEST(after > 0);
  BOOST_TEST(after != before);
  BOOST_TEST(select_one(db) == 1);
}

// Connector/C++ 1.1's Connection::commit() drops the server's answer: a
// COMMIT that failed (a Galera certification failure, here a connection
// killed before it) must not read as committed.
BOOST_AUTO_TEST_CASE(a_failed_commit_is_an_error_not_a_success) {
  DbFixture victim, killer;
  const std::string email = unique_tag("commit");
  svc::db::Transaction tx(victim.db);
  victim.db.execute(kThrottleRow, [&](svc::db::Params& p) { p.text(email); });
  const long long id = connection_id(victim.db);
  killer.exec("KILL CONNECTION " + std::to_string(id));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (killer.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(id)) > 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  BOOST_CHECK_THROW(tx.commit(), std::exception);
  BOOST_TEST(killer.count("SELECT COUNT(*) FROM svc_login_throttle WHERE auth_table = 'db-cluster' AND email = '" +
                          email + "'") == 0);
}

BOOST_AUTO_TEST_CASE(a_deadlock_victim_runs_its_whole_transaction_again) {
  DbFixture a, b;
  const std::string x = unique_tag("x"), y = unique_tag("y");
  a.db.execute(kThrottleRow, [&](svc::db::Params& p) { p.text(x); });
  a.db.execute(kThrottleRow, [&](svc::db::Params& p) { p.text(y); });
  std::atomic<bool> a_holds_x{false}, b_holds_y{false};
  int runs = 0;
  // b takes y, then x; it writes filler rows first so that InnoDB, which
  // rolls back the lighter transaction, picks a.
  std::thread rival([&] {
    svc::db::Transaction tx(b.db);
    for (int i = 0; i < 40; ++i)
      b.db.execute(kThrottleRow, [&](svc::db::Params& p) { p.text(y + "-fill-" + std::to_string(i)); });
    b.db.execute(kBump, [&](svc::db::Params& p) { p.integer(100).text(y); });
    b_holds_y = true;
    if (!wait_for(a_holds_x)) return;
    b.db.execute(kBump, [&](svc::db::Params& p) { p.integer(100).text(x); });  // waits for a, then a is the victim
    tx.commit();
  });
  svc::db::with_transaction_retry(a.db, [&] {
    ++runs;
    svc::db::Transaction tx(a.db);
    a.db.execute(kBump, [&](svc::db::Params& p) { p.integer(1).text(x); });
    if (runs == 1) {
      a_holds_x = true;
      wait_for(b_holds_y);
    }
    a.db.execute(kBump, [&](svc::db::Params& p) { p.integer(1).text(y); });
    tx.commit();
  });
  rival.join();
  BOOST_TEST(runs == 2);
  // Each transaction's writes counted once: the victim's first run left nothing.
  BOOST_TEST(failures(a, x) == 101);
  BOOST_TEST(failures(a, y) == 101);
  a.exec("DELETE FROM svc_login_throttle WHERE auth_table = 'db-cluster'");
}

BOOST_AUTO_TEST_CASE(reruns_are_bounded_and_only_for_what_committed_nothing) {
  DbFixture f;
  f.config.database.transaction_attempts = 3;
  svc::db::Database db(f.config.database);
  int runs = 0;
  // A conflict every time: three runs, then the error.
  BOOST_CHECK_THROW(svc::db::with_transaction_retry(db,
                                                    [&] {
                                                      ++runs;
                                                      svc::db::Transaction tx(db);
                                                      throw svc::db::TransactionConflict("taken meanwhile");
                                                    }),
                    svc::db::TransactionConflict);
  BOOST_TEST(runs == 3);
  // A conflict once: the second run commits.
  runs = 0;
  const int got = svc::db::with_transaction_retry(db, [&] {
    ++runs;
    svc::db::Transaction tx(db);
    if (runs == 1) throw svc::db::TransactionConflict("taken meanwhile");
    tx.commit();
    return 7;
  });
  BOOST_TEST(got == 7);
  BOOST_TEST(runs == 2);
  // Any other error (here a duplicate key, 1062) is not a reason to run again.
  runs = 0;
  const std::string email = unique_tag("dup");
  db.execute(kThrottleRow, [&](svc::db::Params& p) { p.text(email); });
  BOOST_CHECK_THROW(svc::db::with_transaction_retry(db,
                                                    [&] {
                                                      ++runs;
                                                      svc::db::Transaction tx(db);
                                                      db.execute(kThrottleRow,
                                                                 [&](svc::db::Params& p) { p.text(email); });
                                                      tx.commit();
                                                    }),
                    sql::SQLException);
  BOOST_TEST(runs == 1);
  // Inside an open transaction the body runs once: the outer call decides.
  runs = 0;
  {
    svc::db::Transaction outer(db);
    BOOST_CHECK_THROW(svc::db::with_transaction_retry(db,
                                                      [&] {
                                                        ++runs;
                                                        throw svc::db::TransactionConflict("taken meanwhile");
                                                      }),
                      svc::db::TransactionConflict);
  }
  BOOST_TEST(runs == 1);
  f.exec("DELETE FROM svc_login_throttle WHERE auth_table = 'db-cluster'");
}

BOOST_AUTO_TEST_SUITE_END()
