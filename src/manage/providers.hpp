#pragma once
// The upstream providers of a site ("Sign in with …", design "Upstream
// sign-in") as a site-management capability: list, add, remove, for
// `svc-admin site provider add|list|remove` and /admin/sites/{site}/providers.
// The presets, discovery and sealing are upstream/providers.hpp's.

#include <string>
#include <vector>

#include "core/context.hpp"
#include "db/upstream_repo.hpp"
#include "manage/actor.hpp"
#include "upstream/providers.hpp"

namespace svc::manage {

// The site's providers (their client secrets stay sealed). Any role.
std::vector<db::UpstreamProvider> list_providers(core::Context& ctx, const Actor& actor);

// Adds a provider to the actor's site (spec.site_id is set from it). Role
// admin. 400 naming the field for a bad spec or an issuer whose discovery
// fails; 409 when the site has a provider of that name. Audit
// "providers.add" (never the secret).
db::UpstreamProvider add_provider(core::Context& ctx, const Actor& actor, upstream::ProviderSpec spec);

// Removes the provider `name`; its users' linked identities stay (they sign
// in again if it comes back). Role admin. 404 "Provider not found". Audit
// "providers.remove".
void remove_provider(core::Context& ctx, const Actor& actor, const std::string& name);

}  // namespace svc::manage
