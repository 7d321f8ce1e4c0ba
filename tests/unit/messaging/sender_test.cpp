// The sender's batch loop against an in-memory outbox and a scripted mailer,
// and the pure parts it uses (messaging/address: From parsing;
// outgoing_mail: Message-ID, row -> mail; retry_policy: backoff, outcome).
#include "messaging/sender.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "messaging/address.hpp"
#include "messaging/mime.hpp"
#include "messaging/outgoing_mail.hpp"
#include "messaging/retry_policy.hpp"

namespace m = svc::messaging;
namespace db = svc::db;
using m::Outcome;
using m::SendStatus;

namespace {

struct FakeClock : svc::core::Clock {
  long long t = 1'700'000'000;
  long long step = 0;  // added on every now(): lets a batch "take time"
  long long now() const override {
    auto* self = const_cast<FakeClock*>(this);
    self->t += step;
    return t;
  }
};

struct FakeMailer : m::Mailer {
  std::deque<m::SendStatus> script;  // empty -> Sent
  std::vector<m::OutgoingMail> sent;
  std::vector<m::DeadRecipient> dead_on_failure;  // with every result but Sent
  int closes = 0;
  m::SendResult send(const m::OutgoingMail& mail) override {
    sent.push_back(mail);
    SendStatus s = SendStatus::Sent;
    if (!script.empty()) {
      s = script.front();
      script.pop_front();
    }
    return {s,
            s == SendStatus::Sent               ? "250 ok"
            : s == SendStatus::TemporaryFailure ? "451 later"
                                                : "550 no",
            s == SendStatus::Sent ? std::vector<m::DeadRecipient>{} : dead_on_failure};
  }
  void close() override { ++closes; }
};

struct Row {
  db::OutboxMessage msg;
  std::string status = "Pending";
  std::string claimed_by;
  long long delay = -1;
  std::string error;
};

struct FakeQueue : db::OutboxQueue {
  std::map<long long, Row> rows;
  std::vector<int> claim_limits;

  void add(long long id, int attempts = 0) {
    Row r;
    r.msg.id = id;
    r.msg.mail.site_id = 7;
    r.msg.mail.event = "e";
    r.msg.mail.recipient = "to@example.com";
    r.msg.mail.from = "Shop <shop@example.com>";
    r.msg.mail.subject = "s";
    r.msg.mail.body = "<p>b</p>";
    r.msg.attempts = attempts;
    rows[id] = r;
  }
  std::vector<db::OutboxMessage> claim(int limit, int, const std::string& claimer) override {
    claim_limits.push_back(limit);
    std::vector<db::OutboxMessage> out;
    for (auto& [id, r] : rows) {
      if (static_cast<int>(out.size()) == limit) break;
      if (r.status == "Pending" && r.claimed_by.empty() && r.delay < 0) {
        r.claimed_by = claimer;
        out.push_back(r.msg);
      }
    }
    return out;
  }
  bool held(long long id, const std::string& claimer) { return rows[id].claimed_by == claimer; }
  bool mark_sent(long long id, const std::string& claimer) override {
    if (!held(id, claimer)) return false;
    rows[id].status = "Sent";
    rows[id].claimed_by.clear();
    return true;
  }
  bool mark_retry(long long id, const std::string& claimer, long long delay, const std::string& error) override {
    if (!held(id, claimer)) return false;
    rows[id].msg.attempts++;
    rows[id].delay = delay;
    rows[id].error = error;
    rows[id].claimed_by.clear();
    return true;
  }
  bool mark_failed(long long id, const std::string& claimer, const std::string& error) override {
    if (!held(id, claimer)) return false;
    rows[id].msg.attempts++;
    rows[id].status = "Failed";
    rows[id].error = error;
    rows[id].claimed_by.clear();
    return true;
  }
  bool release(long long id, const std::string& claimer) override {
    if (!held(id, claimer)) return false;
    rows[id].claimed_by.clear();
    return true;
  }
};

struct Fixture {
  FakeQueue queue;
  FakeMailer mailer;
  FakeClock clock;
  m::SenderSettings settings;
  volatile std::sig_atomic_t stop = 0;
  Fixture() {
    settings.batch = 10;
    settings.lease_seconds = 60;
    settings.max_attempts = 3;
    settings.backoff_seconds = 60;
  }
  m::Sender sender() {
    return m::Sender(
        queue, mailer, clock, settings, "me", [](std::uint32_t) { return 200u; }, &stop);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sender_test)

BOOST_AUTO_TEST_CASE(parse_mailbox_forms) {
  struct Case {
    const char* in;
    const char* name;
    const char* address;
  };
  const Case cases[] = {
      {"no-reply@demo.example", "", "no-reply@demo.example"},
      {"  no-reply@demo.example ", "", "no-reply@demo.example"},
      {"Demo <no-reply@demo.example>", "Demo", "no-reply@demo.example"},
      {"<a@b.example>", "", "a@b.example"},
      {"\"Last, First\" <a@b.example>", "Last, First", "a@b.example"},
      {"\"Say \\\"hi\\\"\" <a@b.example>", "Say \"hi\"", "a@b.example"},
      {"Grüße Shop <a@b.example>", "Grüße Shop", "a@b.example"},
      {"Evil\r\nBcc: x@y.example <a@b.example>", "EvilBcc: x@y.example", "a@b.example"},
      {"", "", ""},
  };
  for (const auto& c : cases) {
    const auto box = m::parse_mailbox(c.in);
    BOOST_TEST(box.name == c.name, "name of '" << c.in << "': " << box.name);
    BOOST_TEST(box.address == c.address, "address of '" << c.in << "': " << box.address);
  }
}

BOOST_AUTO_TEST_CASE(message_id_is_stable_per_row) {
  BOOST_TEST(m::message_id_for(42, 1, "no-reply@Demo.Example") == "<svc.42.1@demo.example>");
  BOOST_TEST(m::message_id_for(42, 1, "no-reply@demo.example") == m::message_id_for(42, 1, "x@demo.example"));
  BOOST_TEST(m::message_id_for(5, 2, "broken") == "<svc.5.2@localhost>");
  BOOST_TEST(m::message_id_for(5, 2, "a@bad>host") == "<svc.5.2@localhost>");
}

BOOST_AUTO_TEST_CASE(retry_delay_table) {
  struct Case {
    long long base;
    int failures;
    unsigned jitter;
    long long expected;
  };
  const Case cases[] = {
      {60, 0, 200, 60},
      {60, 1, 200, 120},
      {60, 2, 200, 240},
      {60, 3, 200, 480},
      {60, 0, 0, 48},
      {60, 0, 400, 72},
      {60, 0, 9999, 72},  // clamped to +20%
      {1, 0, 0, 1},
      {2, 0, 0, 1},
      {60, 40, 200, 86400},  // capped at one day
      {86400, 3, 400, 103680},
  };
  for (const auto& c : cases) {
    BOOST_TEST(m::retry_delay_seconds(c.base, c.failures, c.jitter) == c.expected,
               "base " << c.base << " failures " << c.failures << " jitter " << c.jitter);
  }
}

BOOST_AUTO_TEST_CASE(outcome_table) {
  BOOST_TEST((m::decide_outcome(SendStatus::Sent, 4, 5) == Outcome::Sent));
  BOOST_TEST((m::decide_outcome(SendStatus::PermanentFailure, 0, 5) == Outcome::Failed));
  BOOST_TEST((m::decide_outcome(SendStatus::TemporaryFailure, 0, 5) == Outcome::Retry));
  BOOST_TEST((m::decide_outcome(SendStatus::TemporaryFailure, 3, 5) == Outcome::Retry));
  BOOST_TEST((m::decide_outcome(SendStatus::TemporaryFailure, 4, 5) == Outcome::Failed));
  BOOST_TEST((m::decide_outcome(SendStatus::TemporaryFailure, 0, 1) == Outcome::Failed));
}

BOOST_AUTO_TEST_CASE(outgoing_mail_from_row) {
  db::OutboxMessage row;
  row.id = 9;
  row.mail.site_id = 3;
  row.mail.recipient = "a@x.example, b@x.example";
  row.mail.cc = "c@x.example";
  row.mail.bcc = "d@x.example;e@x.example";
  row.mail.from = "Shop Team <shop@x.example>";
  row.mail.subject = "Hi";
  row.mail.body = "<p>Hello</p>";
  row.created_unix = 1'700'000'000;
  const auto mail = m::outgoing_mail_for(row);
  BOOST_TEST(mail.from == "shop@x.example");
  BOOST_TEST(mail.from_name == "Shop Team");
  BOOST_TEST((mail.to == std::vector<std::string>{"a@x.example", "b@x.example"}));
  BOOST_TEST((mail.cc == std::vector<std::string>{"c@x.example"}));
  BOOST_TEST((mail.bcc == std::vector<std::string>{"d@x.example", "e@x.example"}));
  BOOST_TEST(mail.message_id == "<svc.9.3@x.example>");
  BOOST_TEST(mail.date_unix == 1'700'000'000);
  const std::string text = m::build_mime(mail);
  BOOST_TEST(text.find("d@x.example") == std::string::npos);  // BCC only in the envelope

  row.mail.recipient = "";  // BCC only
  BOOST_TEST(m::outgoing_mail_for(row).to.empty());
  BOOST_TEST(m::envelope_recipients(m::outgoing_mail_for(row)).size() == 3u);
}

BOOST_AUTO_TEST_CASE(batch_records_each_outcome) {
  Fixture f;
  for (long long id = 1; id <= 4; ++id) f.queue.add(id);
  f.queue.rows[4].msg.attempts = 2;  // its next temporary failure is the 3rd = max
  f.mailer.script = {SendStatus::Sent, SendStatus::TemporaryFailure, SendStatus::PermanentFailure,
                     SendStatus::TemporaryFailure};
  auto sender = f.sender();
  const auto c = sender.run_batch();
  BOOST_TEST(c.claimed == 4);
  BOOST_TEST(c.sent == 1);
  BOOST_TEST(c.retry == 1);
  BOOST_TEST(c.failed == 2);
  BOOST_TEST(f.queue.rows[1].status == "Sent");
  BOOST_TEST(f.queue.rows[2].status == "Pending");
  BOOST_TEST(f.queue.rows[2].msg.attempts == 1);
  BOOST_TEST(f.queue.rows[2].delay == 60);  // base, jitter 200 = +0%
  BOOST_TEST(f.queue.rows[2].error == "451 later");
  BOOST_TEST(f.queue.rows[3].status == "Failed");
  BOOST_TEST(f.queue.rows[3].error == "550 no");
  BOOST_TEST(f.queue.rows[4].status == "Failed");
  BOOST_TEST(f.queue.rows[4].error == "gave up after 3 attempts: 451 later");
}

BOOST_AUTO_TEST_CASE(suppressed_rows_fail_without_an_smtp_attempt) {
  Fixture f;
  for (long long id = 1; id <= 3; ++id) f.queue.add(id);
  f.queue.rows[2].msg.mail.recipient = "Gone@Example.com";
  f.queue.rows[3].msg.mail.recipient = "gone@example.com,kept@example.com";
  auto sender = f.sender();
  std::vector<long long> looked_up;
  sender.set_suppression_lookup([&](const db::OutboxMessage& row, const std::vector<std::string>& addresses) {
    looked_up.push_back(row.id);
    std::map<std::string, std::string> blocked;
    for (const auto& a : addresses) {
      if (svc::core::ascii_lower(a) == "gone@example.com") blocked[svc::core::ascii_lower(a)] = "bounce";
    }
    return blocked;
  });
  const auto c = sender.run_batch();
  BOOST_TEST(looked_up == (std::vector<long long>{1, 2, 3}));
  BOOST_TEST(c.sent == 2);
  BOOST_TEST(c.suppressed == 1);
  BOOST_TEST(c.failed == 0);
  BOOST_TEST(f.queue.rows[2].status == "Failed");
  BOOST_TEST(f.queue.rows[2].error == "suppressed: bounce");
  BOOST_REQUIRE(f.mailer.sent.size() == 2u);  // row 2 never reached the mailer
  BOOST_TEST(f.mailer.sent[1].to == (std::vector<std::string>{"kept@example.com"}));
}

BOOST_AUTO_TEST_CASE(dead_recipients_of_a_failed_row_reach_the_hook) {
  Fixture f;
  for (long long id = 1; id <= 4; ++id) f.queue.add(id);
  f.mailer.script = {SendStatus::PermanentFailure, SendStatus::TemporaryFailure, SendStatus::PermanentFailure,
                     SendStatus::Sent};
  f.mailer.dead_on_failure = {{"to@example.com", "5.1.1"}};
  auto sender = f.sender();
  std::vector<std::string> recorded;
  sender.set_dead_recipient_hook([&](const db::OutboxMessage& row, const m::DeadRecipient& dead) {
    recorded.push_back(std::to_string(row.id) + " " + dead.address + " " + dead.status);
    if (row.id == 1) throw std::runtime_error("database gone");  // logged; the batch goes on
  });
  const auto c = sender.run_batch();
  // Rows 1 and 3 failed for good; row 2 will be retried, row 4 went out.
  BOOST_TEST(recorded == (std::vector<std::string>{"1 to@example.com 5.1.1", "3 to@example.com 5.1.1"}));
  BOOST_TEST(c.failed == 2);
  BOOST_TEST(c.retry == 1);
  BOOST_TEST(c.sent == 1);
  BOOST_TEST(f.queue.rows[1].status == "Failed");
  BOOST_TEST(f.queue.rows[3].status == "Failed");
}

BOOST_AUTO_TEST_CASE(relay_trouble_releases_the_rest) {
  Fixture f;
  for (long long id = 1; id <= 6; ++id) f.queue.add(id);
  f.mailer.script = {SendStatus::TemporaryFailure, SendStatus::TemporaryFailure, SendStatus::TemporaryFailure};
  auto sender = f.sender();
  const auto c = sender.run_pass();
  BOOST_TEST(c.claimed == 6);
  BOOST_TEST(c.retry == 3);
  BOOST_TEST(c.released == 3);
  BOOST_TEST(c.relay_trouble);
  BOOST_TEST(f.mailer.sent.size() == 3u);
  for (long long id = 4; id <= 6; ++id) {
    BOOST_TEST(f.queue.rows[id].msg.attempts == 0);
    BOOST_TEST(f.queue.rows[id].claimed_by.empty());
  }
  BOOST_TEST(f.mailer.closes == 1);
}

BOOST_AUTO_TEST_CASE(a_success_resets_the_trouble_count) {
  Fixture f;
  for (long long id = 1; id <= 6; ++id) f.queue.add(id);
  f.mailer.script = {SendStatus::TemporaryFailure, SendStatus::TemporaryFailure, SendStatus::Sent,
                     SendStatus::TemporaryFailure, SendStatus::TemporaryFailure, SendStatus::Sent};
  auto sender = f.sender();
  const auto c = sender.run_batch();
  BOOST_TEST(!c.relay_trouble);
  BOOST_TEST(c.sent == 2);
  BOOST_TEST(c.retry == 4);
}

BOOST_AUTO_TEST_CASE(stop_flag_releases_unsent_rows) {
  Fixture f;
  for (long long id = 1; id <= 3; ++id) f.queue.add(id);
  f.stop = 1;
  auto sender = f.sender();
  const auto c = sender.run_batch();
  BOOST_TEST(c.claimed == 3);
  BOOST_TEST(c.released == 3);
  BOOST_TEST(f.mailer.sent.empty());
  for (const auto& [id, r] : f.queue.rows) BOOST_TEST(r.claimed_by.empty());
  BOOST_TEST(sender.run_pass().claimed == 0);  // a stopped pass claims nothing
}

BOOST_AUTO_TEST_CASE(half_lease_gone_hands_rows_back) {
  Fixture f;
  for (long long id = 1; id <= 5; ++id) f.queue.add(id);
  f.clock.step = 11;  // every clock read moves 11 s: 60 s lease, half gone after 3 sends
  auto sender = f.sender();
  const auto c = sender.run_batch();
  BOOST_TEST(c.sent + c.released == 5);
  BOOST_TEST(c.released > 0);
  BOOST_TEST(c.sent > 0);
  for (const auto& [id, r] : f.queue.rows) BOOST_TEST(r.claimed_by.empty());
}

BOOST_AUTO_TEST_CASE(pass_claims_batches_until_short) {
  Fixture f;
  f.settings.batch = 4;
  for (long long id = 1; id <= 10; ++id) f.queue.add(id);
  auto sender = f.sender();
  const auto c = sender.run_pass();
  BOOST_TEST(c.sent == 10);
  BOOST_TEST(f.queue.claim_limits.size() == 3u);  // 4 + 4 + 2 (short: stop)
}

BOOST_AUTO_TEST_CASE(lost_claim_is_counted_not_written) {
  Fixture f;
  f.queue.add(1);
  // Another run takes the row while this one sends it.
  struct StealingMailer : FakeMailer {
    FakeQueue* q = nullptr;
    m::SendResult send(const m::OutgoingMail& mail) override {
      q->rows[1].claimed_by = "other";
      return FakeMailer::send(mail);
    }
  } stealing;
  stealing.q = &f.queue;
  m::Sender s(
      f.queue, stealing, f.clock, f.settings, "me", [](std::uint32_t) { return 0u; }, nullptr);
  const auto c = s.run_batch();
  BOOST_TEST(c.sent == 1);
  BOOST_TEST(c.claim_lost == 1);
  BOOST_TEST(f.queue.rows[1].status == "Pending");
}

// A session that holds each message until `want` sessions are inside send()
// at once (or a second has passed), so the test sees whether the Sender
// really runs them in parallel.
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  int inside = 0, most = 0, want = 0;
};

struct ParallelMailer : m::Mailer {
  Rendezvous* meet = nullptr;
  std::vector<long long> ids;  // only this session's thread writes it
  int closes = 0;
  m::SendResult send(const m::OutgoingMail& mail) override {
    std::unique_lock lock(meet->mu);
    ++meet->inside;
    meet->most = std::max(meet->most, meet->inside);
    meet->cv.notify_all();
    meet->cv.wait_for(lock, std::chrono::seconds(1), [&] { return meet->most >= meet->want; });
    --meet->inside;
    ids.push_back(std::stoll(mail.message_id.substr(5)));  // "<svc.{id}.…"
    return {SendStatus::Sent, "250 ok"};
  }
  void close() override { ++closes; }
};

BOOST_AUTO_TEST_CASE(sessions_send_in_parallel_each_row_once) {
  Fixture f;
  f.settings.batch = 20;
  for (long long id = 1; id <= 20; ++id) f.queue.add(id);
  Rendezvous meet;
  meet.want = 4;
  std::vector<ParallelMailer> sessions(4);
  std::vector<m::Mailer*> mailers;
  for (auto& s : sessions) {
    s.meet = &meet;
    mailers.push_back(&s);
  }
  m::Sender sender(
      f.queue, mailers, f.clock, f.settings, "me", [](std::uint32_t) { return 200u; }, &f.stop);
  const auto c = sender.run_pass();
  BOOST_TEST(c.sent == 20);
  BOOST_TEST(meet.most == 4);  // all four sessions were inside send() together
  std::multiset<long long> all;
  for (const auto& s : sessions) {
    BOOST_TEST(!s.ids.empty());
    BOOST_TEST(s.closes == 1);
    all.insert(s.ids.begin(), s.ids.end());
  }
  BOOST_TEST(all.size() == 20u);
  for (long long id = 1; id <= 20; ++id) {
    BOOST_TEST(all.count(id) == 1u);
    BOOST_TEST(f.queue.rows[id].status == "Sent");
  }
}

BOOST_AUTO_TEST_CASE(sessions_share_the_stop_flag_and_release_the_rest) {
  Fixture f;
  for (long long id = 1; id <= 6; ++id) f.queue.add(id);
  f.stop = 1;
  FakeMailer a, b;
  m::Sender sender(
      f.queue, {&a, &b}, f.clock, f.settings, "me", [](std::uint32_t) { return 200u; }, &f.stop);
  const auto c = sender.run_batch();
  BOOST_TEST(c.released == 6);
  BOOST_TEST(a.sent.empty());
  BOOST_TEST(b.sent.empty());
  for (const auto& [id, r] : f.queue.rows) BOOST_TEST(r.claimed_by.empty());
}

BOOST_AUTO_TEST_SUITE_END()
