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

// Sets the site's key to `key` (svc-admin site set --api-key KEY, a key the
// operator chose), or removes it ("": the site needs no key), with the audit
// row "site_key.set" or "site_key.remove" (never the key). Role owner.
void set_site_key(core::Context& ctx, const Actor& actor, const std::string& key);

}  // namespace svc::manage
