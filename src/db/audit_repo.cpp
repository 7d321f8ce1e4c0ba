#include "db/audit_repo.hpp"

namespace svc::db {
namespace {

void set_optional(sql::PreparedStatement& st, int index, const std::string& value, size_t max) {
  if (value.empty()) st.setNull(index, 0);
  else st.setString(index, value.substr(0, max));
}

}  // namespace

void AuditRepo::record(const AuditEvent& e) {
  db_.with(
      "INSERT INTO svc_audit_log (event, auth_table, user_id, site_id, ip, user_agent, request_id, detail)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      [&](sql::PreparedStatement& st) {
        st.setString(1, e.event);
        set_optional(st, 2, e.auth_table, 64);
        if (e.user_id > 0) st.setInt64(3, e.user_id); else st.setNull(3, 0);
        if (e.site_id > 0) st.setInt64(4, e.site_id); else st.setNull(4, 0);
        set_optional(st, 5, e.ip, 64);
        set_optional(st, 6, e.user_agent, 512);
        set_optional(st, 7, e.request_id, 64);
        set_optional(st, 8, e.detail, 255);
        st.executeUpdate();
      });
}

}  // namespace svc::db
