#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::db {
struct Site;
}

namespace svc::http {

using Handler = Response (*)(const Request&, core::Context&);
// Handlers of site-authenticated routes also get the site the dispatcher
// resolved from the site-id / x-site-id header.
using SiteHandler = Response (*)(const Request&, core::Context&, const db::Site&);

inline constexpr size_t kAuthBodyLimit = 64 * 1024;
inline constexpr size_t kMessageBodyLimit = 1024 * 1024;

enum RouteFlags : unsigned {
  kNoFlags = 0,
  kJsonBody = 1u << 0,  // body must be a JSON object (400 otherwise)
  kHashing = 1u << 1,   // runs Argon2id: may be served by a separate worker pool
  kOutbound = 1u << 2,  // waits on an outside party (push service, SMS gateway,
                        // merge SQL): may be served by the outbound worker pool
};

// One row of a route table (the API's is app::routes()). Exactly one of
// handler / site_handler is set. A segment '*' in `path` stands for one
// path segment of 1 to 18 digits (a site id, /oidc/*/...; a row id), a
// segment '?' for one of 1 to 128 of [A-Za-z0-9._~-] (a client id, a
// provider name); path_matches.
struct Route {
  const char* method;
  const char* path;
  Handler handler;
  SiteHandler site_handler;
  size_t body_limit;
  unsigned flags;
};

// Whether `path` is `pattern`, each '*' segment matched by 1 to 18 digits,
// each '?' segment by a name (Route).
bool path_matches(std::string_view pattern, std::string_view path);

// The segments of a path: "/admin/sites/3/users" -> {"admin", "sites", "3",
// "users"}. Views into `path`.
std::vector<std::string_view> path_segments(std::string_view path);

}  // namespace svc::http
