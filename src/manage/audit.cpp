#include "manage/audit.hpp"

#include <string>

#include "core/log.hpp"

namespace svc::manage {

void audit(core::Context& ctx, const Actor& actor, const std::string& action, const std::string& target,
           const std::string& detail) {
  db::AdminAuditRow row;
  row.site_id = actor.site_id;
  row.actor = actor.audit_name();
  row.action = action;
  row.target = target;
  row.detail = detail;
  row.ip = actor.ip;
  row.request_id = actor.request_id;
  db::AdminAuditRepo(ctx.db).record(row);
}

Page<db::AdminAuditRow> audit_page(core::Context& ctx, const Actor& actor, const std::string& cursor, int limit) {
  const std::string position = read_cursor(ctx, "audit", actor.site_id, cursor);
  const long long before = position.empty() ? 0 : std::stoll(position);
  return paged(ctx, "audit", actor.site_id, db::AdminAuditRepo(ctx.db).page(actor.site_id, before, limit + 1), limit,
               [](const db::AdminAuditRow& last) { return std::to_string(last.id); });
}

}  // namespace svc::manage
