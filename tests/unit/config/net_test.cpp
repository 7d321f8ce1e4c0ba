// config/net: the CIDR blocks of [server] allowed_peers, the peer check the
// worker runs after accept, the listen address of [server] socket and the
// entries of [database] hosts. Tables of inputs with the exact outcome.
#include "config/net.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <vector>

using svc::config::Cidr;
using svc::config::HostPort;
using svc::config::parse_cidr;
using svc::config::parse_host_port;
using svc::config::parse_listen_address;
using svc::config::peer_allowed;

namespace {

sockaddr_storage v4_peer(const char* text) {
  sockaddr_storage ss{};
  auto* in = reinterpret_cast<sockaddr_in*>(&ss);
  in->sin_family = AF_INET;
  in->sin_port = htons(40000);
  BOOST_REQUIRE(inet_pton(AF_INET, text, &in->sin_addr) == 1);
  return ss;
}

sockaddr_storage v6_peer(const char* text) {
  sockaddr_storage ss{};
  auto* in = reinterpret_cast<sockaddr_in6*>(&ss);
  in->sin6_family = AF_INET6;
  BOOST_REQUIRE(inet_pton(AF_INET6, text, &in->sin6_addr) == 1);
  return ss;
}

std::vector<Cidr> blocks(std::initializer_list<const char*> texts) {
  std::vector<Cidr> out;
  for (const char* t : texts) {
    auto c = parse_cidr(t);
    BOOST_REQUIRE_MESSAGE(c, t);
    out.push_back(*c);
  }
  return out;
}

bool allowed(const std::vector<Cidr>& list, const sockaddr_storage& peer) {
  return peer_allowed(list, reinterpret_cast<const sockaddr*>(&peer));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(net_test)

BOOST_AUTO_TEST_CASE(cidr_text_is_parsed_or_refused) {
  struct Row {
    const char* text;
    bool ok;
    int prefix;  // in the v6 form (v4 + 96)
  };
  const std::vector<Row> rows = {
      {"10.1.0.0/24", true, 120},  {"127.0.0.1/32", true, 128},
      {"127.0.0.1", true, 128},    {"0.0.0.0/0", true, 96},
      {"::1/128", true, 128},      {"::1", true, 128},
      {"fe80::/10", true, 10},     {"::/0", true, 0},
      {"10.1.0.1/24", false, 0},  // host bits set
      {"10.1.0.0/33", false, 0},   {"::/129", false, 0},
      {"10.1.0.0/", false, 0},     {"10.1.0.0/24x", false, 0},
      {"10.1.0.0/-1", false, 0},   {"10.1.0.0/ 24", false, 0},
      {"10.1.0/24", false, 0},     {"[::1]/128", false, 0},
      {"localhost", false, 0},     {"", false, 0},
      {"10.1.0.0/24/8", false, 0},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.text) {
      auto c = parse_cidr(row.text);
      BOOST_TEST(c.has_value() == row.ok);
      if (c && row.ok) {
        BOOST_TEST(c->prefix == row.prefix);
        BOOST_TEST(c->text == row.text);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(peers_match_their_blocks_only) {
  const auto list = blocks({"10.1.0.0/24", "127.0.0.1/32", "::1/128", "fd00:1::/32", "192.168.7.128/25"});
  BOOST_TEST(allowed(list, v4_peer("10.1.0.0")));
  BOOST_TEST(allowed(list, v4_peer("10.1.0.255")));
  BOOST_TEST(!allowed(list, v4_peer("10.1.1.0")));
  BOOST_TEST(!allowed(list, v4_peer("10.0.0.7")));
  BOOST_TEST(allowed(list, v4_peer("127.0.0.1")));
  BOOST_TEST(!allowed(list, v4_peer("127.0.0.2")));
  BOOST_TEST(allowed(list, v4_peer("192.168.7.200")));
  BOOST_TEST(!allowed(list, v4_peer("192.168.7.127")));  // /25: the bit inside a byte counts
  BOOST_TEST(allowed(list, v6_peer("::1")));
  BOOST_TEST(!allowed(list, v6_peer("::2")));
  BOOST_TEST(allowed(list, v6_peer("fd00:1:ffff::9")));
  BOOST_TEST(!allowed(list, v6_peer("fd00:2::9")));
  // A v4 client of a [::] socket arrives as ::ffff:a.b.c.d.
  BOOST_TEST(allowed(list, v6_peer("::ffff:10.1.0.9")));
  BOOST_TEST(!allowed(list, v6_peer("::ffff:10.9.0.9")));
  // A v4 block never matches a plain v6 address with the same low bytes.
  BOOST_TEST(!allowed(list, v6_peer("::10.1.0.9")));
}

BOOST_AUTO_TEST_CASE(default_list_is_loopback_and_unix_peers_pass) {
  const auto list = svc::config::loopback_peers();
  BOOST_TEST(allowed(list, v4_peer("127.0.0.1")));
  BOOST_TEST(allowed(list, v4_peer("127.1.2.3")));
  BOOST_TEST(allowed(list, v6_peer("::1")));
  BOOST_TEST(!allowed(list, v4_peer("10.1.0.1")));
  BOOST_TEST(!allowed(list, v6_peer("fe80::1")));
  sockaddr_storage unix_peer{};
  unix_peer.ss_family = AF_UNIX;
  BOOST_TEST(allowed(list, unix_peer));
  BOOST_TEST(allowed({}, unix_peer));
  BOOST_TEST(!allowed({}, v4_peer("127.0.0.1")));
}

BOOST_AUTO_TEST_CASE(listen_address_is_numeric_with_an_explicit_host) {
  struct Row {
    const char* text;
    std::optional<HostPort> expected;
  };
  const std::vector<Row> rows = {
      {"127.0.0.1:9000", HostPort{"127.0.0.1", 9000}},
      {"10.1.0.5:9001", HostPort{"10.1.0.5", 9001}},
      {"0.0.0.0:9000", HostPort{"0.0.0.0", 9000}},
      {"[::1]:9000", HostPort{"::1", 9000}},
      {"[::]:65535", HostPort{"::", 65535}},
      {":9000", std::nullopt},  // every interface, implicitly: refused
      {"localhost:9000", std::nullopt},
      {"127.0.0.1", std::nullopt},
      {"127.0.0.1:", std::nullopt},
      {"127.0.0.1:0", std::nullopt},
      {"127.0.0.1:65536", std::nullopt},
      {"127.0.0.1:90x", std::nullopt},
      {"::1:9000", std::nullopt},  // v6 needs brackets
      {"[127.0.0.1]:9000", std::nullopt},
      {"[::1:9000", std::nullopt},
      {"/run/svc/svc.sock", std::nullopt},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.text) {
      auto got = parse_listen_address(row.text);
      BOOST_TEST(got.has_value() == row.expected.has_value());
      if (got && row.expected) {
        BOOST_TEST(got->host == row.expected->host);
        BOOST_TEST(got->port == row.expected->port);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(database_host_entries_take_a_default_port) {
  struct Row {
    const char* text;
    std::optional<HostPort> expected;
  };
  const std::vector<Row> rows = {
      {"db1", HostPort{"db1", 3306}},
      {"db1:3307", HostPort{"db1", 3307}},
      {"10.2.0.11:3306", HostPort{"10.2.0.11", 3306}},
      {"[fd00::11]:3310", HostPort{"fd00::11", 3310}},
      {"[fd00::11]", HostPort{"fd00::11", 3306}},
      {"/run/mysqld/mysqld.sock", HostPort{"/run/mysqld/mysqld.sock", 0}},
      {"fd00::11", std::nullopt},
      {"db1:", std::nullopt},
      {":3306", std::nullopt},
      {"db1:x", std::nullopt},
      {"db1:70000", std::nullopt},
      {"[fd00::11]:", std::nullopt},
      {"[fd00::11]x", std::nullopt},
      {"[db1]:3306", std::nullopt},
      {"db 1", std::nullopt},
      {"", std::nullopt},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.text) {
      auto got = parse_host_port(row.text, 3306);
      BOOST_TEST(got.has_value() == row.expected.has_value());
      if (got && row.expected) {
        BOOST_TEST(got->host == row.expected->host);
        BOOST_TEST(got->port == row.expected->port);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
