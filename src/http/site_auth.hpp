#pragma once

#include <string>
#include <string_view>

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "http/request.hpp"

namespace svc::http {

// Resolves the calling application from the `site-id` (or `x-site-id`)
// header. A missing, non-numeric, unknown or inactive site, a site with an
// API key whose `x-site-key` header does not match, a header given twice
// (repeated lines arrive joined with ", ") or a `site-id` and an `x-site-id`
// that differ throws ApiError 401 {"status":"Error","message":"Unauthorized"}.
// The body never chooses the site.
db::Site authenticate_site(const Request& request, core::Context& ctx);

// True when the site has an API key and the request's `x-site-key` header is
// that key, given once (hash compared in constant time). False for a keyless
// site.
bool site_key_matches(const Request& request, const db::Site& site);

// The stored form of a site API key (hex BLAKE2b-256); svc-admin writes it.
std::string hash_site_key(std::string_view key);

}  // namespace svc::http
