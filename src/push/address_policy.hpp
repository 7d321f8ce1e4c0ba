#pragma once
// Which addresses and ports a Web Push endpoint may be reached at: the pure
// policy of the SSRF guard (push_client.cpp applies it in curl's open-socket
// callback to every address curl is about to connect to). No I/O.

#include <vector>

struct sockaddr;

namespace svc::push {

// True for addresses a push endpoint must never reach: IPv4 0/8, 10/8,
// 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.168/16, 198.18/15,
// 224/4 and 240/4 (incl. broadcast); IPv6 ::/96 (unspecified, loopback,
// IPv4-compatible), fc00::/7, fe80::/10, fec0::/10, ff00::/8, and IPv4-mapped
// (::ffff:0:0/96) and 6to4 (2002::/16) addresses whose embedded IPv4 address
// is forbidden, and every NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and Teredo
// (2001::/32) address. Also true for nullptr and any family other than
// AF_INET/AF_INET6.
bool is_forbidden_address(const struct sockaddr* address);

// True when the address's port is 443 or one of `allowed_ports` ([push]
// allowed_ports). False for nullptr and families other than AF_INET/AF_INET6.
bool is_allowed_port(const struct sockaddr* address, const std::vector<int>& allowed_ports);

}  // namespace svc::push
