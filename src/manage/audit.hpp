#pragma once

#include <string>

#include "core/context.hpp"
#include "db/admin_audit_repo.hpp"
#include "manage/actor.hpp"
#include "manage/page.hpp"

namespace svc::manage {

// Writes the one svc_admin_audit row of a change: `action` (e.g.
// "user.disable"), `target` ("user 42"), `detail` (never a secret).
void audit(core::Context& ctx, const Actor& actor, const std::string& action, const std::string& target,
           const std::string& detail = "");

// The site's audit, newest first, a page of at most `limit` after `cursor`
// ("" = the newest). Any role may read it.
Page<db::AdminAuditRow> audit_page(core::Context& ctx, const Actor& actor, const std::string& cursor, int limit);

}  // namespace svc::manage
