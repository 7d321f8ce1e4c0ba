#include "db/audit_repo.hpp"

namespace svc::db {

void AuditRepo::record(const AuditEvent& e) {
  // Each text is cut to its column's width; "" and 0 mean "none" (NULL).
  db_.execute(
      "INSERT INTO svc_audit_log (event, auth_table, user_id, site_id, pool_id, ip, user_agent, request_id, detail)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [&](Params& p) {
        p.text(e.event)
            .text_or_null(e.auth_table.substr(0, 64))
            .id_or_null(e.user_id)
            .id_or_null(e.site_id)
            .id_or_null(e.pool_id)
            .text_or_null(e.ip.substr(0, 64))
            .text_or_null(e.user_agent.substr(0, 512))
            .text_or_null(e.request_id.substr(0, 64))
            .text_or_null(e.detail.substr(0, 255));
      });
}

}  // namespace svc::db
