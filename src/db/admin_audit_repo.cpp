#include "db/admin_audit_repo.hpp"

namespace svc::db {

void AdminAuditRepo::record(const AdminAuditRow& row) {
  // Each text is cut to its column's width.
  db_.execute(
      "INSERT INTO svc_admin_audit (site_id, actor, action, target, detail, ip, request_id, created_at)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, UNIX_TIMESTAMP())",
      [&](Params& p) {
        p.integer(row.site_id)
            .text(row.actor.substr(0, 32))
            .text(row.action.substr(0, 64))
            .text(row.target.substr(0, 255))
            .text(row.detail.substr(0, 1024))
            .text(row.ip.substr(0, 64))
            .text(row.request_id.substr(0, 64));
      });
}

std::vector<AdminAuditRow> AdminAuditRepo::page(long long site_id, long long before_id, int limit) {
  return db_.rows(
      "SELECT id, site_id, actor, action, target, detail, ip, request_id, created_at FROM svc_admin_audit"
      " WHERE site_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
      [&](Params& p) {
        p.integer(site_id).integer(before_id > 0 ? before_id : static_cast<long long>(INT64_MAX)).integer(limit);
      },
      read_fields<AdminAuditRow, &AdminAuditRow::id, &AdminAuditRow::site_id, &AdminAuditRow::actor,
                  &AdminAuditRow::action, &AdminAuditRow::target, &AdminAuditRow::detail, &AdminAuditRow::ip,
                  &AdminAuditRow::request_id, &AdminAuditRow::created_at>);
}

}  // namespace svc::db
