#include "push/address_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>

namespace svc::push {
namespace {

bool in_v4(std::uint32_t addr, std::uint32_t net, int prefix) {
  const std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
  return (addr & mask) == net;
}

// `addr` in host byte order.
bool forbidden_v4(std::uint32_t addr) {
  struct Net {
    std::uint32_t net;
    int prefix;
  };
  static constexpr Net kForbidden[] = {
      {0x00000000, 8},   // "this network", 0.0.0.0
      {0x0A000000, 8},   // 10/8 private
      {0x64400000, 10},  // 100.64/10 CGNAT
      {0x7F000000, 8},   // loopback
      {0xA9FE0000, 16},  // link-local (cloud metadata 169.254.169.254)
      {0xAC100000, 12},  // 172.16/12 private
      {0xC0000000, 24},  // IETF protocol assignments
      {0xC0A80000, 16},  // 192.168/16 private
      {0xC6120000, 15},  // 198.18/15 benchmarking
      {0xE0000000, 4},   // multicast
      {0xF0000000, 4},   // reserved, broadcast
  };
  return std::any_of(std::begin(kForbidden), std::end(kForbidden),
                     [addr](const Net& n) { return in_v4(addr, n.net, n.prefix); });
}

std::uint32_t v4_at(const unsigned char* b) {
  return std::uint32_t{b[0]} << 24 | std::uint32_t{b[1]} << 16 | std::uint32_t{b[2]} << 8 | b[3];
}

bool forbidden_v6(const unsigned char (&a)[16]) {
  static constexpr unsigned char kZero[12] = {};
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  // IPv4-translated (SIIT, RFC 2765 2.1: ::ffff:0:a.b.c.d): a translator
  // takes it to the IPv4 address, so it is judged as that address.
  static constexpr unsigned char kTranslated[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
  static constexpr unsigned char kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
  static constexpr unsigned char kNat64Local[6] = {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01};
  if (std::memcmp(a, kZero, 12) == 0) return true;  // ::, ::1, IPv4-compatible
  if (std::memcmp(a, kMapped, 12) == 0 || std::memcmp(a, kTranslated, 12) == 0) return forbidden_v4(v4_at(a + 12));
  // A NAT64 gateway (64:ff9b::/96, local-use 64:ff9b:1::/48) connects on our
  // behalf to an IPv4 address the gateway chooses, maybe inside its own
  // network; Teredo (2001::/32) tunnels to an address we cannot see.
  if (std::memcmp(a, kNat64, 12) == 0 || std::memcmp(a, kNat64Local, 6) == 0) return true;
  const bool teredo = a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x00 && a[3] == 0x00;
  if (teredo) return true;
  if (a[0] == 0x20 && a[1] == 0x02) return forbidden_v4(v4_at(a + 2));  // 6to4
  if ((a[0] & 0xfe) == 0xfc) return true;                               // fc00::/7 ULA
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return true;               // fe80::/10
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) return true;               // fec0::/10
  return a[0] == 0xff;                                                  // multicast
}

}  // namespace

bool is_forbidden_address(const struct sockaddr* address) {
  if (address == nullptr) return true;
  if (address->sa_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, address, sizeof v4);
    return forbidden_v4(ntohl(v4.sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, address, sizeof v6);
    return forbidden_v6(v6.sin6_addr.s6_addr);
  }
  return true;
}

bool is_allowed_port(const struct sockaddr* address, const std::vector<int>& allowed_ports) {
  if (address == nullptr) return false;
  int port = 0;
  if (address->sa_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, address, sizeof v4);
    port = ntohs(v4.sin_port);
  } else if (address->sa_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, address, sizeof v6);
    port = ntohs(v6.sin6_port);
  } else {
    return false;
  }
  return port == 443 || std::find(allowed_ports.begin(), allowed_ports.end(), port) != allowed_ports.end();
}

}  // namespace svc::push
