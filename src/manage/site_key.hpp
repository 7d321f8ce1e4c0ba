#pragma once
// The site key (the x-site-key of the messaging API) as site management
// rotates it: POST /admin/sites/{site}/key (owner, recent sign-in) and
// `svc-admin site set --api-key generate`. Only its hash is stored, so the
// new key is shown once, in the reply that made it.

#include <string>

#include "core/context.hpp"
#include "manage/actor.hpp"

namespace svc::manage {

// 32 random bytes, base64url (43 characters).
std::string generate_site_key();

// A new key replaces the site's (the old one stops working once workers'
// site caches expire: [server] site_cache_seconds); writes the audit row
// "site_key.rotate" (never the key). Role owner. Returns the new key.
std::string rotate_site_key(core::Context& ctx, const Actor& actor);

}  // namespace svc::manage
