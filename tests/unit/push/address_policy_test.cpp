// The SSRF guard's policy of push endpoints (push/address_policy): which
// addresses are forbidden, which ports allowed. Pure tables, no curl, no
// network.
#include "push/address_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

using svc::push::is_allowed_port;
using svc::push::is_forbidden_address;

namespace {

// `ip` (IPv4 or IPv6 text) and `port` as the sockaddr curl would hand the guard.
sockaddr_storage address(const std::string& ip, int port) {
  sockaddr_storage ss{};
  if (ip.find(':') == std::string::npos) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    BOOST_REQUIRE(inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1);
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    BOOST_REQUIRE(inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1);
  }
  return ss;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(address_policy_test)

BOOST_AUTO_TEST_CASE(forbidden_address_table) {
  struct Case {
    const char* ip;
    bool forbidden;
  };
  const Case cases[] = {
      {"127.0.0.1", true},
      {"127.255.0.9", true},
      {"10.1.2.3", true},
      {"172.16.0.1", true},
      {"172.31.255.255", true},
      {"192.168.1.1", true},
      {"169.254.169.254", true},
      {"0.0.0.0", true},
      {"100.64.0.1", true},
      {"224.0.0.1", true},
      {"255.255.255.255", true},
      {"::", true},
      {"::1", true},
      {"fe80::1", true},
      {"febf::1", true},
      {"::ffff:127.0.0.1", true},
      {"::ffff:10.0.0.1", true},
      {"::ffff:169.254.169.254", true},
      {"::ffff:0:127.0.0.1", true},  // IPv4-translated (::ffff:0:0:0/96)
      {"::ffff:0:a9fe:a9fe", true},
      {"::ffff:0:10.1.2.3", true},
      {"fc00::1", true},
      {"fd12:3456::1", true},
      {"ff02::1", true},
      {"64:ff9b::7f00:1", true},
      {"2002:c0a8:0101::1", true},
      {"93.184.216.34", false},
      {"8.8.8.8", false},
      {"172.32.0.1", false},
      {"100.128.0.1", false},
      {"2606:4700::1", false},
      {"::ffff:93.184.216.34", false},
      {"::ffff:0:93.184.216.34", false},
      {"2a00:1450:4001::200e", false},
      {"64:ff9b::808:808", true},    // NAT64: the gateway picks the real target
      {"64:ff9b:1::808:808", true},  // local-use NAT64
      {"64:ff9b:1:ffff::1", true},
      {"2001:0:4136:e378::1", true},  // Teredo
      {"2001:db9::1", false},         // outside 2001::/32
      {"2001:4860:4860::8888", false},
      {"64:ff9b:2::1", false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("address " << c.ip) {
      const sockaddr_storage ss = address(c.ip, 443);
      BOOST_TEST(is_forbidden_address(reinterpret_cast<const sockaddr*>(&ss)) == c.forbidden);
    }
  }
  BOOST_TEST(is_forbidden_address(nullptr));
  sockaddr unix_like{};
  unix_like.sa_family = AF_UNIX;
  BOOST_TEST(is_forbidden_address(&unix_like));
}

BOOST_AUTO_TEST_CASE(only_443_and_configured_ports) {
  struct Case {
    const char* ip;
    int port;
    std::vector<int> allowed;
    bool ok;
  };
  const Case cases[] = {
      {"93.184.216.34", 443, {}, true},       {"2606:4700::1", 443, {}, true},
      {"93.184.216.34", 80, {}, false},       {"93.184.216.34", 6379, {}, false},
      {"2606:4700::1", 8443, {}, false},      {"2606:4700::1", 8443, {8443}, true},
      {"93.184.216.34", 8080, {8443}, false}, {"93.184.216.34", 443, {8443}, true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("address " << c.ip << " port " << c.port) {
      const sockaddr_storage ss = address(c.ip, c.port);
      BOOST_TEST(is_allowed_port(reinterpret_cast<const sockaddr*>(&ss), c.allowed) == c.ok);
    }
  }
  BOOST_TEST(!is_allowed_port(nullptr, {443}));
  sockaddr unix_like{};
  unix_like.sa_family = AF_UNIX;
  BOOST_TEST(!is_allowed_port(&unix_like, {443}));
}

BOOST_AUTO_TEST_SUITE_END()
