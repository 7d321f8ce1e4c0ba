#pragma once
// Who may call /admin/sites/{site}/... (design "Site administrators and the
// site management API"), and the request helpers every management handler
// shares.

#include <optional>
#include <string>

#include "core/context.hpp"
#include "http/request.hpp"
#include "manage/actor.hpp"

namespace svc::manage_api {

// How recent the sign-in must be: destructive changes (delete a user,
// rotate a key or secret, remove an admin, delete a client or endpoint)
// need one of the last kRecentSignIn seconds.
enum class Change { kAny, kDestructive };
inline constexpr long long kRecentSignIn = 600;

// The site administrator a request comes from, for the site its path
// names, checked in this order:
//   401 Unauthorized: no valid account token (auth::require_signed_in);
//   403 Forbidden: its user holds no grant on the site (or the site is gone);
//   403 Second factor required for site administration: the session's amr
//       shows neither TOTP ("mfa") nor a passkey ("hwk", "swk");
//   403 Forbidden: the grant's role is below `needed`;
//   401 Recent sign-in required, log in again: `change` is destructive and
//       the sign-in is older than kRecentSignIn.
manage::Actor require_admin(const http::Request& request, core::Context& ctx, manage::Role needed,
                            Change change = Change::kAny);

// The id in path segment `index` ("/admin/sites/3/users/42": 2 is the
// site, 4 the user); the route's '*' made it digits.
long long path_id(const http::Request& request, size_t index);
// The name in path segment `index` (a route's '?').
std::string path_name(const http::Request& request, size_t index);

// A query parameter, percent-decoded; nullopt when absent; 400 naming it
// when it is sent twice or does not decode.
std::optional<std::string> query_param(const http::Request& request, const char* name);
// A query parameter that must be a positive integer when present.
std::optional<long long> query_integer(const http::Request& request, const char* name);

}  // namespace svc::manage_api
