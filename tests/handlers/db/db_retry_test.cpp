// What Database does when its connection is lost (another session KILLs it,
// as a server restart or wait_timeout would): a read is run again on a new
// connection; a plain write is not (its first run may have committed before
// the reply was lost), the error propagates; the outbox insert, which is
// idempotent per (request id, event, recipient), is run again and still
// queues one mail. Then: the outbox row of a delivered or failed mail keeps
// no JWT in its body.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <ctime>
#include <string>
#include <thread>

#include "db/notification_repo.hpp"
#include "db/outbox_repo.hpp"
#include "db_fixture.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(db_retry_test)

namespace {

std::string unique_tag(const char* tag) {
  static const std::string run = std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr));
  static int serial = 0;
  return std::string(tag) + "-" + run + "-" + std::to_string(++serial);
}

// KILLs the connection of `victim` from `killer`'s session and waits (at
// most 10 s) until the server has dropped it.
long long connection_id(DbFixture& f) { return f.count("SELECT CONNECTION_ID()"); }

void kill_connection(DbFixture& victim, DbFixture& killer) {
  const long long id = connection_id(victim);
  BOOST_REQUIRE_GT(id, 0);
  killer.exec("KILL CONNECTION " + std::to_string(id));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (killer.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(id)) > 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

const std::string kInsertThrottle =
    "INSERT INTO svc_login_throttle (auth_table, email, failures, window_start, locked_until) VALUES ('db-retry', ?,"
    " 0, 0, 0)";

svc::db::OutboxEntry outbox_entry(const std::string& request_id, const std::string& body = "<p>hello</p>") {
  svc::db::OutboxEntry e;
  e.mail.site_id = 1;
  e.mail.event = "db-retry-test";
  e.mail.recipient = "retry@example.com";
  e.mail.from = "sender@example.com";
  e.mail.subject = "retry";
  e.mail.body = body;
  e.request_id = request_id;
  return e;
}

long long outbox_rows(DbFixture& f, const std::string& request_id) {
  return f.count("SELECT COUNT(*) FROM svc_notification_log WHERE request_id = '" + request_id + "'");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_read_is_run_again_on_a_new_connection) {
  DbFixture victim, killer;
  const long long before = connection_id(victim);
  kill_connection(victim, killer);
  auto answer = victim.db.one("SELECT 41 + 1", svc::db::kNoParams, [](svc::db::RowReader& r) { return r.integer(); });
  BOOST_CHECK_EQUAL(answer.value_or(0), 42);
  BOOST_CHECK_NE(connection_id(victim), before);
}

BOOST_AUTO_TEST_CASE(a_write_is_not_run_again_after_a_lost_connection) {
  DbFixture victim, killer;
  const std::string warm = unique_tag("warm"), email = unique_tag("write");
  // The statement is prepared on the old connection, so the loss shows when
  // it is executed, as a lost reply would.
  victim.db.execute(kInsertThrottle, [&](svc::db::Params& p) { p.text(warm); });
  kill_connection(victim, killer);
  BOOST_CHECK_THROW(victim.db.execute(kInsertThrottle, [&](svc::db::Params& p) { p.text(email); }), std::exception);
  BOOST_CHECK_EQUAL(killer.count("SELECT COUNT(*) FROM svc_login_throttle WHERE email = '" + email + "'"), 0);
  // The next statement reconnects.
  victim.db.execute(kInsertThrottle, [&](svc::db::Params& p) { p.text(email); });
  BOOST_CHECK_EQUAL(killer.count("SELECT COUNT(*) FROM svc_login_throttle WHERE email = '" + email + "'"), 1);
  killer.exec("DELETE FROM svc_login_throttle WHERE auth_table = 'db-retry'");
}

// A statement the server interrupted (1317: KILL QUERY here; Galera does the
// same to a statement in the way of a replicated migration) was rolled
// back, so even a plain write runs once more, and counts once.
BOOST_AUTO_TEST_CASE(an_interrupted_statement_is_run_again) {
  DbFixture victim, holder, killer;
  const std::string email = unique_tag("interrupted");
  const std::string row = "auth_table = 'db-retry' AND email = '" + email + "'";
  killer.db.execute(kInsertThrottle, [&](svc::db::Params& p) { p.text(email); });
  const std::string victim_id = std::to_string(connection_id(victim));
  holder.exec("START TRANSACTION");
  holder.exec("UPDATE svc_login_throttle SET failures = failures + 1 WHERE " + row);  // holds the row
  std::string error;
  std::thread writer([&] {
    try {
      victim.db.execute("UPDATE svc_login_throttle SET failures = failures + 10 WHERE " + row, svc::db::kNoParams);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  auto wait_for = [&](auto done) {  // at most 10 s
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  auto lock_waits = [&] {
    return killer.count(
        "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
        " WHERE VARIABLE_NAME = 'INNODB_ROW_LOCK_WAITS'");
  };
  // The victim's UPDATE waits on the row lock; interrupted, it runs again
  // and waits once more (a second lock wait), until the holder commits.
  wait_for([&] {
    return killer.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + victim_id +
                        " AND INFO LIKE 'UPDATE svc_login_throttle%'") > 0;
  });
  const long long waits = lock_waits();
  killer.exec("KILL QUERY " + victim_id);
  wait_for([&] { return lock_waits() > waits; });
  holder.exec("COMMIT");
  writer.join();
  BOOST_TEST(error.empty(), error);
  BOOST_CHECK_EQUAL(killer.count("SELECT failures FROM svc_login_throttle WHERE " + row), 11);
  killer.exec("DELETE FROM svc_login_throttle WHERE auth_table = 'db-retry'");
}

BOOST_AUTO_TEST_CASE(the_outbox_insert_runs_again_and_queues_one_mail) {
  DbFixture victim, killer;
  svc::db::NotificationRepo repo(victim.db);
  const std::string warm = unique_tag("warm"), request = unique_tag("lost");
  repo.enqueue(outbox_entry(warm));
  kill_connection(victim, killer);
  BOOST_CHECK_NO_THROW(repo.enqueue(outbox_entry(request)));
  BOOST_CHECK_EQUAL(outbox_rows(killer, request), 1);
  killer.exec("DELETE FROM svc_notification_log WHERE event = 'db-retry-test'");
}

BOOST_AUTO_TEST_CASE(the_same_request_queues_one_mail_and_two_requests_two) {
  DbFixture f;
  svc::db::NotificationRepo repo(f.db);
  const std::string first = unique_tag("first"), second = unique_tag("second");
  // What a re-run does when the first run committed but its reply was lost.
  repo.enqueue(outbox_entry(first));
  const long long id = f.db.last_insert_id();
  repo.enqueue(outbox_entry(first));
  BOOST_CHECK_EQUAL(outbox_rows(f, first), 1);
  BOOST_CHECK_EQUAL(f.db.last_insert_id(), id);  // the link of a retried insert names the one row
  // Another recipient in the same request is another mail.
  auto other = outbox_entry(first);
  other.mail.recipient = "someone.else@example.com";
  repo.enqueue(other);
  BOOST_CHECK_EQUAL(outbox_rows(f, first), 2);
  // The same mail from another request is another mail.
  repo.enqueue(outbox_entry(second));
  BOOST_CHECK_EQUAL(outbox_rows(f, second), 1);
  f.exec("DELETE FROM svc_notification_log WHERE event = 'db-retry-test'");
}

BOOST_AUTO_TEST_CASE(a_sent_or_failed_row_keeps_no_token_and_a_retried_one_keeps_it) {
  DbFixture f;
  const std::string token =
      "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsInR5cCI6InJlc2V0In0.c2lnbmF0dXJlLWJ5dGVz_-x";
  const std::string body = "<a href=\"https://app.example.com/reset?token=" + token + "&amp;x=1\">Reset</a>";
  const std::string redacted = "<a href=\"https://app.example.com/reset?token=[redacted]&amp;x=1\">Reset</a>";
  svc::db::NotificationRepo repo(f.db);
  svc::db::OutboxRepo outbox(f.db);
  const std::string claimer = unique_tag("claimer");
  long long ids[3];
  for (auto& id : ids) {
    repo.enqueue(outbox_entry(unique_tag("redact"), body));
    id = f.db.last_insert_id();
  }
  auto body_of = [&](long long id) {
    return f.db.one(
        "SELECT body FROM svc_notification_log WHERE id = ?", [&](svc::db::Params& p) { p.integer(id); },
        [](svc::db::RowReader& r) { return r.text(); });
  };
  f.exec("UPDATE svc_notification_log SET claimed_by = '" + claimer + "', claimed_until = NOW() + INTERVAL 1 MINUTE" +
         " WHERE event = 'db-retry-test' AND id >= " + std::to_string(ids[0]));
  BOOST_REQUIRE(outbox.mark_sent(ids[0], claimer));
  BOOST_REQUIRE(outbox.mark_failed(ids[1], claimer, "550 no such user"));
  BOOST_REQUIRE(outbox.mark_retry(ids[2], claimer, 60, "451 try later"));
  BOOST_CHECK_EQUAL(body_of(ids[0]).value_or(""), redacted);
  BOOST_CHECK_EQUAL(body_of(ids[1]).value_or(""), redacted);
  BOOST_CHECK_EQUAL(body_of(ids[2]).value_or(""), body);  // still to be sent: the link must work
  f.exec("DELETE FROM svc_notification_log WHERE event = 'db-retry-test'");
}

BOOST_AUTO_TEST_SUITE_END()
