#pragma once
// The calls svc makes to an upstream identity provider (token endpoint,
// JWKS, GitHub's API, discovery): libcurl behind the push SSRF guard
// (push/ssrf_guard.hpp: https only, or http too under [push]
// allow_insecure_endpoints; every address connected to checked; no
// redirects, no proxy), bounded to kTimeoutMs in all, the reply's body to
// kMaxBody bytes. One handle per thread. Routes that call it are kOutbound.

#include <string>
#include <vector>

#include "config/config.hpp"

namespace svc::upstream {

inline constexpr long kTimeoutMs = 15000;
inline constexpr std::size_t kMaxBody = 256 * 1024;

enum class FetchOutcome { kOk, kBlocked, kTimeout, kNetwork, kTooLarge };

struct Fetched {
  FetchOutcome outcome = FetchOutcome::kNetwork;
  long status = 0;
  std::string body;
  std::string detail;  // for the log; never holds a secret
  bool ok() const { return outcome == FetchOutcome::kOk && status >= 200 && status < 300; }
};

struct FetchRequest {
  std::string url;
  std::string form;                  // non-empty: POST application/x-www-form-urlencoded
  std::vector<std::string> headers;  // "Name: value"
};

Fetched fetch(const config::Config& config, const FetchRequest& request);

// `s` percent-encoded for a query or form value (RFC 3986 unreserved kept).
std::string url_encode(const std::string& s);

}  // namespace svc::upstream
