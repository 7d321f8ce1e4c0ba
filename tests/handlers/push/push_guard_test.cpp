// POST /message/sendPush with the REAL libcurl push client and its SSRF guard
// ON (allow_insecure_endpoints = false), against the stack's database: every
// subscription endpoint that is not https or that resolves to a loopback,
// private, link-local or otherwise forbidden address yields 200
// {"status":"Error"} quickly, and no connection is ever made. Listeners on
// 127.0.0.1 and ::1 prove the latter: they count every accepted connection,
// and a control run with the guard OFF shows they do see curl's connection.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/routes.hpp"
#include "core/clock.hpp"
#include "core/context.hpp"
#include "crypto/encoding.hpp"
#include "crypto/sealed_id.hpp"
#include "crypto/vapid.hpp"
#include "db/site_repo.hpp"
#include "db_fixture.hpp"
#include "http/dispatch.hpp"
#include "push/push_client.hpp"

using svc::testing::DbFixture;

BOOST_AUTO_TEST_SUITE(push_guard_test)

namespace {

constexpr auto kQuick = std::chrono::seconds(5);

// Forwards to a real CurlPushClient and keeps what it was asked and answered,
// so a test can tell "the guard refused it" from "the handler never got that far".
class ObservedCurl final : public svc::push::PushClient {
 public:
  explicit ObservedCurl(bool insecure) : inner_(options(insecure)) {}
  svc::push::PushResult send(const svc::push::PushRequest& r) override {
    requests.push_back(r);
    results.push_back(inner_.send(r));
    return results.back();
  }
  std::vector<svc::push::PushRequest> requests;
  std::vector<svc::push::PushResult> results;

 private:
  static svc::push::PushOptions options(bool insecure) {
    svc::push::PushOptions o;
    o.allow_insecure_endpoints = insecure;
    o.connect_timeout_ms = 3000;
    o.total_timeout_ms = 4000;
    return o;
  }
  svc::push::CurlPushClient inner_;
};

// Accepts and immediately closes connections on a loopback address, counting them.
class Listener {
 public:
  explicit Listener(bool v6) : v6_(v6) {
    fd_ = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    bool ok = false;
    if (v6) {
      ::setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_loopback;
      socklen_t len = sizeof a;
      ok = ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(fd_, 16) == 0 &&
           ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0;
      port_ = ntohs(a.sin6_port);
      std::memcpy(&address_, &a, sizeof a);
      address_length_ = sizeof a;
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof a;
      ok = ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(fd_, 16) == 0 &&
           ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0;
      port_ = ntohs(a.sin_port);
      std::memcpy(&address_, &a, sizeof a);
      address_length_ = sizeof a;
    }
    if (!ok) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 50) > 0) {
          int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
          if (c >= 0) {
            ++accepted_;
            ::close(c);
          }
        }
      }
    });
  }
  ~Listener() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  int port() const { return port_; }

  // The connections others made, counted once every connection made before
  // this call has been accepted: connects once itself and waits (up to 10 s)
  // until the listener has accepted and closed that probe. The kernel hands
  // connections to accept() in the order they were made, so none made
  // earlier can still be waiting (no sleep that hopes it was long enough).
  // -1 when the probe did not come back.
  int settled_accepted() {
    int c = ::socket(v6_ ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0) return -1;
    bool closed = false;
    if (::connect(c, reinterpret_cast<const sockaddr*>(&address_), address_length_) == 0) {
      ++probes_;
      pollfd p{c, POLLIN, 0};
      char byte = 0;
      closed = ::poll(&p, 1, 10000) > 0 && ::recv(c, &byte, 1, 0) == 0;
    }
    ::close(c);
    return closed ? accepted_ - probes_ : -1;
  }

 private:
  bool v6_;
  sockaddr_storage address_{};
  socklen_t address_length_ = 0;
  int probes_ = 0;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

struct GuardFixture {
  DbFixture f;  // config, database, fakes for hasher / sms; its RecordingPush stays unused
  svc::core::SystemClock clock;
  ObservedCurl guarded{false};
  ObservedCurl open{true};
  svc::core::Context ctx{f.config, f.db, nullptr, clock, f.random, f.hasher, f.sms, guarded, nullptr};
  svc::core::Context open_ctx{f.config, f.db, nullptr, clock, f.random, f.hasher, f.sms, open, nullptr};
  std::string tag = std::to_string(::getpid()) + "-" + std::to_string(std::rand());
  long long site_id = 0;
  std::string vapid_public;

  GuardFixture() {
    auto keys = svc::crypto::generate_vapid_keys();
    svc::db::Site s;
    s.name = "push-guard-" + tag;
    s.vapid_subject = "mailto:guard@example.com";
    s.vapid_public_key = svc::crypto::base64url_encode(keys.public_key);
    s.vapid_private_key = svc::crypto::base64url_encode(keys.private_key);
    vapid_public = s.vapid_public_key;
    site_id = svc::db::SiteRepo(f.db).create(s);
    BOOST_REQUIRE_GT(site_id, 0);
  }
  ~GuardFixture() {
    try {
      f.exec("DELETE FROM svc_customers WHERE site_id = " + std::to_string(site_id));
      f.exec("DELETE FROM svc_sites WHERE id = " + std::to_string(site_id));
    } catch (...) {
    }
  }

  // A customer of the test site subscribed at `endpoint` with valid P-256 keys
  // (a fresh key pair; only the public half matters, nothing is decrypted).
  long long customer(const std::string& endpoint) {
    static int n = 0;
    std::string name = "guard-" + tag + "-" + std::to_string(++n);
    auto ua = svc::crypto::generate_vapid_keys();  // any P-256 pair serves as a UA key
    std::string p256dh = svc::crypto::base64url_encode(ua.public_key);
    std::string auth = svc::crypto::base64url_encode(std::string(16, '\x07'));
    // Test setup only: endpoint strings are the literals below, no quotes in them.
    f.exec("INSERT INTO svc_customers (site_id, name, pushsubscription, p256dh, auth) VALUES (" +
           std::to_string(site_id) + ", '" + name + "', '" + endpoint + "', '" + p256dh + "', '" + auth + "')");
    return f.count("SELECT id FROM svc_customers WHERE name = '" + name + "'");
  }

  std::string token(long long customer_id) {
    return svc::crypto::seal_id(customer_id, clock.now() + 3600, svc::crypto::IdPurpose::Customer,
                                f.config.keys.id_key);
  }

  svc::http::Response send(svc::core::Context& c, long long customer_id) {
    std::string body = R"({"customerID":")" + token(customer_id) + R"(","message":"guard test"})";
    svc::http::Request r;
    r.method = "POST";
    r.path = "/message/sendPush";
    r.request_id = "push-guard-test";
    r.remote_addr = "127.0.0.1";
    r.content_length = static_cast<long long>(body.size());
    r.headers["site-id"] = std::to_string(site_id);
    r.headers["content-type"] = "application/json";
    svc::http::StringBody src(body);
    return svc::http::dispatch(svc::app::routes(), r, src, c);
  }
};

const char* outcome_name(svc::push::PushOutcome o) {
  switch (o) {
    case svc::push::PushOutcome::Delivered:
      return "Delivered";
    case svc::push::PushOutcome::Gone:
      return "Gone";
    case svc::push::PushOutcome::Rejected:
      return "Rejected";
    case svc::push::PushOutcome::Blocked:
      return "Blocked";
    case svc::push::PushOutcome::NetworkError:
      return "NetworkError";
  }
  return "?";
}

}  // namespace

BOOST_AUTO_TEST_CASE(forbidden_endpoints_are_error_without_a_connection) {
  GuardFixture g;
  Listener v4(false), v6(true);
  BOOST_REQUIRE(v4.ok());
  const std::string p4 = std::to_string(v4.port());
  std::vector<std::string> endpoints = {
      "https://127.0.0.1:9/x",
      "https://10.1.2.3/x",
      "https://169.254.169.254/latest",
      "http://example.com/x",
      "https://[::1]/x",
      "https://localhost/x",
      // with something listening, so "no connection" is observable
      "https://127.0.0.1:" + p4 + "/x",
      "http://127.0.0.1:" + p4 + "/x",
      "https://localhost:" + p4 + "/x",
      "https://127.1:" + p4 + "/x",
      "https://2130706433:" + p4 + "/x",
      "https://user@127.0.0.1:" + p4 + "/x",
      "https://0.0.0.0:" + p4 + "/x",
      "https://[::ffff:127.0.0.1]:" + p4 + "/x",
      "https://192.168.1.1/x",
      "https://172.16.0.1/x",
      "https://100.64.0.1/x",
      "https://[fd00::1]/x",
      "https://[fe80::1]/x",
  };
  if (v6.ok()) endpoints.push_back("https://[::1]:" + std::to_string(v6.port()) + "/x");

  for (const auto& endpoint : endpoints) {
    BOOST_TEST_CONTEXT("endpoint " << endpoint) {
      long long id = g.customer(endpoint);
      const std::size_t calls = g.guarded.requests.size();
      auto t0 = std::chrono::steady_clock::now();
      auto r = g.send(g.ctx, id);
      auto elapsed = std::chrono::steady_clock::now() - t0;
      BOOST_CHECK_EQUAL(r.status, 200);
      BOOST_CHECK_EQUAL(r.body, R"({"status":"Error"})");
      BOOST_CHECK_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(),
                     std::chrono::duration_cast<std::chrono::milliseconds>(kQuick).count());
      // The handler got as far as the client (so the Error is the guard's), and
      // the client refused before connecting.
      BOOST_REQUIRE_EQUAL(g.guarded.requests.size(), calls + 1);
      BOOST_CHECK_EQUAL(g.guarded.requests.back().endpoint, endpoint);
      BOOST_CHECK_MESSAGE(
          g.guarded.results.back().outcome == svc::push::PushOutcome::Blocked,
          "outcome " << outcome_name(g.guarded.results.back().outcome) << ": " << g.guarded.results.back().detail);
      BOOST_CHECK_EQUAL(g.guarded.results.back().http_status, 0);
    }
  }
  BOOST_CHECK_EQUAL(v4.settled_accepted(), 0);
  if (v6.ok()) {
    BOOST_CHECK_EQUAL(v6.settled_accepted(), 0);
  } else {
    BOOST_TEST_MESSAGE("no ::1 on this host: the IPv6 loopback endpoint was not tried");
  }
}

// Control: the same request with the guard OFF does reach the listener, so
// the zero counts above mean something.
BOOST_AUTO_TEST_CASE(control_without_guard_the_listener_sees_the_connection) {
  GuardFixture g;
  Listener v4(false);
  BOOST_REQUIRE(v4.ok());
  long long id = g.customer("https://127.0.0.1:" + std::to_string(v4.port()) + "/x");
  auto r = g.send(g.open_ctx, id);
  BOOST_CHECK_EQUAL(r.status, 200);
  BOOST_CHECK_EQUAL(r.body, R"({"status":"Error"})");  // no TLS there: NetworkError
  BOOST_REQUIRE_EQUAL(g.open.results.size(), 1u);
  BOOST_CHECK(g.open.results.back().outcome == svc::push::PushOutcome::NetworkError);
  const int seen = v4.settled_accepted();
  BOOST_CHECK_GE(seen, 1);
  // And with the guard ON the identical request makes no connection.
  auto blocked = g.send(g.ctx, id);
  BOOST_CHECK_EQUAL(blocked.body, R"({"status":"Error"})");
  BOOST_REQUIRE_EQUAL(g.guarded.results.size(), 1u);
  BOOST_CHECK(g.guarded.results.back().outcome == svc::push::PushOutcome::Blocked);
  BOOST_CHECK_EQUAL(v4.settled_accepted(), seen);
}

// The guard must not decide before the request is well formed: the request it
// was handed carries the site's VAPID key and an aes128gcm body, i.e. the
// handler built a real push for the blocked endpoint.
BOOST_AUTO_TEST_CASE(blocked_request_was_a_complete_push) {
  GuardFixture g;
  long long id = g.customer("https://10.1.2.3/x");
  auto r = g.send(g.ctx, id);
  BOOST_CHECK_EQUAL(r.body, R"({"status":"Error"})");
  BOOST_REQUIRE_EQUAL(g.guarded.requests.size(), 1u);
  const auto& req = g.guarded.requests.back();
  BOOST_CHECK(req.authorization.rfind("vapid t=", 0) == 0);
  BOOST_CHECK(req.authorization.find(", k=" + g.vapid_public) != std::string::npos);
  BOOST_CHECK_GT(req.body.size(), 86u + 16u);
  BOOST_CHECK_EQUAL(req.ttl_seconds, 2419200);
  BOOST_CHECK_EQUAL(req.urgency, "normal");
}

BOOST_AUTO_TEST_SUITE_END()
