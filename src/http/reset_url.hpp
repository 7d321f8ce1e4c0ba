#pragma once
// Where a password-reset link may point (issue 22). One rule for both places
// that accept a reset page: `svc-admin site set --reset-url` (the site's
// reset URLs) and the `url` of /auth/request-pass, which must lie within one
// of them. Pure parsing and comparison: no DNS, no I/O.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svc::http {

// An absolute http(s) URL as a browser would resolve it, for comparing.
struct ResetUrl {
  std::string scheme;  // "http" or "https", lower-cased
  std::string host;    // lower-cased; an IPv6 literal keeps its brackets
  int port = 0;        // explicit, or 80 / 443 by scheme
  std::string path;    // "/" when empty; everything before '?' or '#'
};

// nullopt unless `url` is an absolute http:// or https:// URL (scheme in any
// case) with a host of ASCII letters, digits, '-' and '.' (or a bracketed
// IPv6 literal), an optional numeric port 1..65535, no userinfo, none of
// the bytes a link must not carry (controls, space, '"', '<', '>', '\',
// non-ASCII), and a path without dot segments ("." / ".." / "%2e" forms,
// also before a ';') or encoded slashes ("%2f", "%5c"), so the path a
// browser requests is the path compared.
std::optional<ResetUrl> parse_reset_url(std::string_view url);

// The transport rule: https, or http to a loopback host (localhost,
// 127.0.0.0/8, [::1]); a reset link over http to any other host would carry
// the token in clear.
bool reset_transport_ok(const ResetUrl& url);

// True when `url` lies within `prefix`: the same scheme, host and port, and
// a path that equals the prefix's or continues it at a segment boundary
// ("/reset" holds "/reset" and "/reset/x", not "/reset-evil"; "/reset/"
// holds "/reset/x"). The prefix's query and fragment do not count.
bool reset_url_within(const ResetUrl& url, const ResetUrl& prefix);

// True when `url` parses, passes the transport rule and lies within one of
// `prefixes` that parses.
bool reset_url_allowed(std::string_view url, const std::vector<std::string>& prefixes);

// The link to one of svc's ready pages ([auth] reset_page, verify_page: a URL
// without query or fragment) for a site: "PAGE?site=ID#token=TOKEN". The page
// shows the site's name (issue 36); the token stays in the fragment, which
// no server sees. site_id <= 0: no "?site=".
std::string ready_page_link(std::string_view page, long long site_id, std::string_view token);

}  // namespace svc::http
