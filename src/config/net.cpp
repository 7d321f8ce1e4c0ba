#include "config/net.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

namespace svc::config {
namespace {

// The 16-byte form of a numeric address ("1.2.3.4" as ::ffff:1.2.3.4);
// `v4` says which family it was.
std::optional<std::array<std::uint8_t, 16>> numeric_address(const std::string& text, bool& v4) {
  std::array<std::uint8_t, 16> out{};
  in_addr a4{};
  if (inet_pton(AF_INET, text.c_str(), &a4) == 1) {
    v4 = true;
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &a4, 4);
    return out;
  }
  in6_addr a6{};
  if (inet_pton(AF_INET6, text.c_str(), &a6) == 1) {
    v4 = false;
    std::memcpy(out.data(), &a6, 16);
    return out;
  }
  return std::nullopt;
}

// A decimal number in [min, max] with nothing else; nullopt otherwise.
std::optional<int> small_number(std::string_view text, int min, int max) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < min || n > max) return std::nullopt;
  return n;
}

bool host_bits_clear(const std::array<std::uint8_t, 16>& a, int prefix) {
  for (int bit = prefix; bit < 128; ++bit) {
    if (a[static_cast<size_t>(bit / 8)] & (0x80 >> (bit % 8))) return false;
  }
  return true;
}

}  // namespace

std::optional<Cidr> parse_cidr(std::string_view text) {
  const size_t slash = text.find('/');
  bool v4 = false;
  auto address = numeric_address(std::string(text.substr(0, slash)), v4);
  if (!address) return std::nullopt;
  const int max = v4 ? 32 : 128;
  int prefix = max;
  if (slash != std::string_view::npos) {
    auto n = small_number(text.substr(slash + 1), 0, max);
    if (!n) return std::nullopt;
    prefix = *n;
  }
  if (v4) prefix += 96;
  if (!host_bits_clear(*address, prefix)) return std::nullopt;
  return Cidr{*address, prefix, std::string(text)};
}

bool cidr_contains(const Cidr& block, const std::array<std::uint8_t, 16>& address) {
  const size_t whole = static_cast<size_t>(block.prefix / 8);
  if (std::memcmp(block.address.data(), address.data(), whole) != 0) return false;
  const int rest = block.prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (address[whole] & mask) == block.address[whole];
}

std::optional<std::array<std::uint8_t, 16>> peer_address(const sockaddr* peer) {
  std::array<std::uint8_t, 16> out{};
  if (peer->sa_family == AF_INET) {
    sockaddr_in in4{};
    std::memcpy(&in4, peer, sizeof in4);
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &in4.sin_addr, 4);
    return out;
  }
  if (peer->sa_family == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, peer, sizeof in6);
    std::memcpy(out.data(), &in6.sin6_addr, 16);
    return out;
  }
  return std::nullopt;
}

bool peer_allowed(const std::vector<Cidr>& allowed, const sockaddr* peer) {
  auto address = peer_address(peer);
  if (!address) return true;
  for (const Cidr& block : allowed) {
    if (cidr_contains(block, *address)) return true;
  }
  return false;
}

std::vector<Cidr> loopback_peers() { return {*parse_cidr("127.0.0.0/8"), *parse_cidr("::1/128")}; }

std::optional<HostPort> parse_listen_address(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  auto port = small_number(text.substr(colon + 1), 1, 65535);
  if (!port) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  bool v4 = false;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    std::string inner(host.substr(1, host.size() - 2));
    if (!numeric_address(inner, v4) || v4) return std::nullopt;
    return HostPort{inner, *port};
  }
  std::string plain(host);
  if (!numeric_address(plain, v4) || !v4) return std::nullopt;
  return HostPort{plain, *port};
}

std::optional<HostPort> parse_host_port(std::string_view text, int default_port) {
  if (!text.empty() && text.front() == '/') return HostPort{std::string(text), 0};
  std::string_view host = text;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    std::string_view after = text.substr(close + 1);
    if (!after.empty() && after.front() != ':') return std::nullopt;
    if (!after.empty()) {
      port_text = after.substr(1);
      if (port_text.empty()) return std::nullopt;
    }
    bool v4 = false;
    if (!numeric_address(std::string(host), v4) || v4) return std::nullopt;
  } else if (const size_t colon = text.find(':'); colon != std::string_view::npos) {
    if (text.find(':', colon + 1) != std::string_view::npos) return std::nullopt;  // a v6 address needs brackets
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (port_text.empty()) return std::nullopt;
  }
  if (host.empty() || host.find_first_of(" \t/") != std::string_view::npos) return std::nullopt;
  int port = default_port;
  if (!port_text.empty()) {
    auto n = small_number(port_text, 1, 65535);
    if (!n) return std::nullopt;
    port = *n;
  }
  return HostPort{std::string(host), port};
}

bool is_loopback_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  std::string h(host);
  return inet_pton(AF_INET, h.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

std::string url_host(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') return std::string(rest.substr(0, rest.find(']') + 1));
  return std::string(rest.substr(0, rest.find(':')));
}

}  // namespace svc::config
