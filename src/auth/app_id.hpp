#pragma once

#include <optional>

#include "core/context.hpp"
#include "http/validate.hpp"

namespace svc::auth {

// The optional `appID` of login and sign-up: it goes into the tokens, so when
// present it must name an active site (svc_sites); otherwise a field error
// "appID does not name an application" is added. Absent → 0 (no application).
// nullopt only when an error was added. Reads the site through the site cache.
std::optional<long long> optional_app_id(http::Fields& fields, core::Context& ctx);

// The user pool a request's addresses are looked up in (design "User
// pools"): its site's pool, or the default pool for app 0 (no appID) and a
// site that no longer exists. Reads the site through the site cache. The
// one place a request's pool is decided.
long long user_pool(core::Context& ctx, long long app_id);

}  // namespace svc::auth
