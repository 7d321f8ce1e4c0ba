#pragma once
// Network probes of `svc-admin doctor`: each connects to one peer of the
// deployment, does the least that proves it answers, and sends nothing that
// has an effect (no mail, no SMS, no HTTP request).

#include <string>

#include "config/config.hpp"

namespace svc::admin {

struct ProbeResult {
  bool ok = false;
  std::string detail;  // what answered, or the error; never a password
};

// SMTP: connect, greeting, EHLO (helo_name or this host), STARTTLS when
// security = starttls (a server without it fails), TLS from the first byte
// when tls, AUTH when configured; then the connection is dropped (no MAIL,
// no QUIT). libcurl's connect-only mode.
ProbeResult probe_smtp(const config::SmtpSettings& smtp, int timeout_seconds);

// TCP connect to the host and port of an http(s) URL, plus the TLS handshake
// for https (certificate checked). No request is sent.
ProbeResult probe_url(const std::string& url, int timeout_seconds);

// Connects to a FastCGI listening socket: a unix path, or host:port / :port.
// ok when the connection is accepted (a stale socket file gives ECONNREFUSED).
ProbeResult probe_socket(const std::string& address, int timeout_seconds);

}  // namespace svc::admin
