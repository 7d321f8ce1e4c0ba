#pragma once
// Network addresses as the configuration writes them: the TCP address a
// FastCGI socket binds, the CIDR blocks of [server] allowed_peers, the
// host:port entries of [database] hosts, and whether a host is this machine
// (the loopback-only rules of [server] test_mode and [smtp]). Pure parsing
// and matching (no DNS, no sockets), so every rule is unit-tested.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sockaddr;

namespace svc::config {

// An IPv4 or IPv6 block. A v4 block is stored as its IPv4-mapped v6 form
// (::ffff:a.b.c.d, prefix + 96), so one comparison serves both families and
// a v4 peer that reaches a [::] socket as ::ffff:a.b.c.d matches 127.0.0.1/32.
struct Cidr {
  std::array<std::uint8_t, 16> address{};  // host bits cleared
  int prefix = 0;                          // 0..128, in the v6 form
  std::string text;                        // as written, for messages
};

// "10.1.0.0/24", "::1/128", "fe80::/10"; a bare address is a host (/32 or
// /128). nullopt for anything else: a name, a prefix out of range or with
// junk ("/24x", "/-1"), host bits set beyond the prefix ("10.1.0.1/24": a
// typo more often than intent, so it is refused rather than silently
// widened), brackets, blanks.
std::optional<Cidr> parse_cidr(std::string_view text);

// True when the 16-byte (v6 or v4-mapped) address lies in the block.
bool cidr_contains(const Cidr& block, const std::array<std::uint8_t, 16>& address);

// The 16-byte form of a peer's AF_INET or AF_INET6 address (v4 mapped to
// ::ffff:a.b.c.d); nullopt for any other family (a unix socket peer).
std::optional<std::array<std::uint8_t, 16>> peer_address(const sockaddr* peer);

// True when some block of `allowed` holds the peer's address. A peer of
// another family (unix socket) is always allowed: the list is for TCP.
bool peer_allowed(const std::vector<Cidr>& allowed, const sockaddr* peer);

// 127.0.0.0/8 and ::1/128: [server] allowed_peers when the file sets none.
std::vector<Cidr> loopback_peers();

// A TCP endpoint to bind or to connect to. `host` is without brackets.
struct HostPort {
  std::string host;
  int port = 0;
  bool operator==(const HostPort&) const = default;
};

// A listen address: "IPv4:port" or "[IPv6]:port", numeric only, port
// 1..65535. nullopt for anything else, notably ":port" (every interface
// must be asked for explicitly: 0.0.0.0:port or [::]:port) and host names
// (which address a name binds depends on the resolver of the day).
std::optional<HostPort> parse_listen_address(std::string_view text);

// A [database] hosts entry: "name", "name:port", "1.2.3.4:port",
// "[v6]:port" or "[v6]"; the port defaults to `default_port`. An absolute
// path is a unix socket: {path, 0}. nullopt for an empty host, a bad port or
// an unbracketed v6 address.
std::optional<HostPort> parse_host_port(std::string_view text, int default_port);

// True for "localhost", 127.0.0.0/8 and ::1 (with or without brackets).
bool is_loopback_host(std::string_view host);

// The host of an absolute URL ("http://h:1/x" -> "h", "http://[::1]/" ->
// "[::1]"); "" when `url` has no "scheme://". Unlike core::url_host it takes
// any scheme, keeps the case and skips userinfo ("u@h" -> "h").
std::string url_host(std::string_view url);

}  // namespace svc::config
