// Push delivery: refusals that need no network, and a transcript against a
// tiny in-process HTTP server on 127.0.0.1 (guard off). The address table of
// the guard is address_policy_test.cpp.
#include "push/push_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using svc::push::CurlPushClient;
using svc::push::PushOptions;
using svc::push::PushOutcome;
using svc::push::PushRequest;
using svc::push::PushResult;

namespace {

// Serves one connection per scripted status line, sequentially, then stops.
// Records each raw request (head and body).
class TinyHttpServer {
 public:
  explicit TinyHttpServer(std::vector<std::string> statuses) : statuses_(std::move(statuses)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    BOOST_REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    timeval timeout{5, 0};  // accept() and recv() give up rather than hang the suite
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    BOOST_REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    BOOST_REQUIRE(::listen(fd_, 4) == 0);
    BOOST_REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TinyHttpServer() {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  // Waits for the server to finish; then requests() is safe to read.
  const std::vector<std::string>& requests() {
    if (thread_.joinable()) thread_.join();
    return requests_;
  }

 private:
  void serve() {
    for (const auto& status : statuses_) {
      const int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (conn < 0) return;
      timeval timeout{5, 0};
      ::setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      std::string req = read_request(conn);
      requests_.push_back(req);
      const std::string reply = "HTTP/1.1 " + status + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
      [[maybe_unused]] auto sent = ::send(conn, reply.data(), reply.size(), MSG_NOSIGNAL);
      ::close(conn);
    }
  }
  static std::string read_request(int conn) {
    std::string req;
    char buf[4096];
    std::size_t need = std::string::npos;
    while (need == std::string::npos || req.size() < need) {
      const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
      if (n <= 0) break;
      req.append(buf, static_cast<std::size_t>(n));
      const auto head_end = req.find("\r\n\r\n");
      if (need == std::string::npos && head_end != std::string::npos) {
        std::size_t length = 0;
        const auto cl = req.find("Content-Length: ");
        if (cl != std::string::npos && cl < head_end) length = std::stoul(req.substr(cl + 16));
        need = head_end + 4 + length;
      }
    }
    return req;
  }

  std::vector<std::string> statuses_;
  std::vector<std::string> requests_;
  int fd_ = -1;
  unsigned short port_ = 0;
  std::thread thread_;
};

std::string body_of(const std::string& request) {
  const auto head_end = request.find("\r\n\r\n");
  return head_end == std::string::npos ? "" : request.substr(head_end + 4);
}

bool has_header(const std::string& request, const std::string& line) {
  const auto head_end = request.find("\r\n\r\n");
  const auto at = request.find("\r\n" + line + "\r\n");
  return at != std::string::npos && at < head_end;
}

PushOptions insecure() {
  PushOptions o;
  o.allow_insecure_endpoints = true;
  o.connect_timeout_ms = 2000;
  o.total_timeout_ms = 5000;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(push_client_test)

BOOST_AUTO_TEST_CASE(guard_blocks_private_targets_and_plain_http) {
  PushOptions options;
  options.connect_timeout_ms = 2000;
  options.total_timeout_ms = 3000;
  CurlPushClient client(options);
  for (const char* url : {"https://127.0.0.1:1/x", "https://169.254.169.254/", "https://[::1]:1/x",
                          "https://localhost:1/x", "https://10.0.0.1/x", "http://example.com", "HTTP://example.com/x",
                          "ftp://example.com/", "file:///etc/passwd", "example.com/x"}) {
    BOOST_TEST_CONTEXT("endpoint " << url) {
      PushRequest request;
      request.endpoint = url;
      request.body = "x";
      const PushResult result = client.send(request);
      BOOST_TEST(static_cast<int>(result.outcome) == static_cast<int>(PushOutcome::Blocked));
      BOOST_TEST(result.http_status == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(malformed_push_headers_are_not_sent) {
  CurlPushClient client(insecure());
  auto outcome = [&](auto mutate) {
    PushRequest request;
    request.endpoint = "http://127.0.0.1:1/x";  // never contacted
    mutate(request);
    return client.send(request).outcome;
  };
  BOOST_TEST((outcome([](PushRequest& r) { r.urgency = "urgent"; }) == PushOutcome::Rejected));
  BOOST_TEST((outcome([](PushRequest& r) { r.topic = "has space"; }) == PushOutcome::Rejected));
  BOOST_TEST((outcome([](PushRequest& r) { r.topic = std::string(33, 'a'); }) == PushOutcome::Rejected));
  BOOST_TEST((outcome([](PushRequest& r) { r.ttl_seconds = -1; }) == PushOutcome::Rejected));
  BOOST_TEST((outcome([](PushRequest& r) { r.authorization = "vapid t=x\r\nX-Evil: 1"; }) == PushOutcome::Rejected));
  // Nobody listens on port 1: a well-formed request gets as far as connect().
  BOOST_TEST((outcome([](PushRequest&) {}) == PushOutcome::NetworkError));
}

BOOST_AUTO_TEST_CASE(delivers_then_reports_gone_with_exact_request) {
  TinyHttpServer server({"201 Created", "410 Gone"});
  CurlPushClient client(insecure());

  PushRequest request;
  request.endpoint = server.url("/push/abc");
  request.body = std::string("\x00\x01\xff binary \r\n\r\n body", 21);
  request.authorization = "vapid t=h.p.s, k=BPv_";
  request.ttl_seconds = 60;
  request.urgency = "high";
  request.topic = "order-42";
  const PushResult first = client.send(request);
  BOOST_TEST((first.outcome == PushOutcome::Delivered));
  BOOST_TEST(first.http_status == 201);

  PushRequest second_request;
  second_request.endpoint = server.url("/push/dead");
  second_request.body = "gone?";
  const PushResult second = client.send(second_request);
  BOOST_TEST((second.outcome == PushOutcome::Gone));
  BOOST_TEST(second.http_status == 410);

  const auto& seen = server.requests();
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);
  BOOST_TEST(seen[0].starts_with("POST /push/abc HTTP/1.1\r\n"));
  BOOST_TEST(has_header(seen[0], "Content-Encoding: aes128gcm"));
  BOOST_TEST(has_header(seen[0], "Content-Type: application/octet-stream"));
  BOOST_TEST(has_header(seen[0], "TTL: 60"));
  BOOST_TEST(has_header(seen[0], "Urgency: high"));
  BOOST_TEST(has_header(seen[0], "Topic: order-42"));
  BOOST_TEST(has_header(seen[0], "Authorization: vapid t=h.p.s, k=BPv_"));
  BOOST_TEST(has_header(seen[0], "Content-Length: 21"));
  BOOST_TEST(seen[0].find("Expect:") == std::string::npos);
  BOOST_TEST(body_of(seen[0]) == request.body);

  BOOST_TEST(seen[1].starts_with("POST /push/dead HTTP/1.1\r\n"));
  BOOST_TEST(has_header(seen[1], "TTL: 2419200"));
  BOOST_TEST(has_header(seen[1], "Urgency: normal"));
  BOOST_TEST(seen[1].find("Topic:") == std::string::npos);
  BOOST_TEST(seen[1].find("Authorization:") == std::string::npos);
  BOOST_TEST(body_of(seen[1]) == "gone?");
}

BOOST_AUTO_TEST_CASE(other_statuses_are_rejected_and_redirects_not_followed) {
  TinyHttpServer server({"301 Moved Permanently\r\nLocation: http://127.0.0.1:1/", "429 Too Many Requests",
                         "500 Internal Server Error", "404 Not Found"});
  CurlPushClient client(insecure());
  PushRequest request;
  request.endpoint = server.url("/p");
  const long expected_status[] = {301, 429, 500, 404};
  const PushOutcome expected_outcome[] = {PushOutcome::Rejected, PushOutcome::Rejected, PushOutcome::Rejected,
                                          PushOutcome::Gone};
  for (int i = 0; i < 4; ++i) {
    const PushResult r = client.send(request);
    BOOST_TEST(r.http_status == expected_status[i]);
    BOOST_TEST((r.outcome == expected_outcome[i]));
  }
  BOOST_TEST(server.requests().size() == 4u);  // the 301 was not followed elsewhere
}

BOOST_AUTO_TEST_SUITE_END()
