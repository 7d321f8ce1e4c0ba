#include "db/site_admin_repo.hpp"

namespace svc::db {
namespace {

constexpr auto read_admin = read_fields<SiteAdmin, &SiteAdmin::site_id, &SiteAdmin::auth_table, &SiteAdmin::user_id,
                                        &SiteAdmin::role, &SiteAdmin::granted_at>;

constexpr auto read_session_grant = read_fields<SessionGrant, &SessionGrant::auth_table, &SessionGrant::user_id,
                                                &SessionGrant::revoked_at, &SessionGrant::role>;

}  // namespace

std::optional<SessionGrant> SiteAdminRepo::session_grant(const std::string& session_id, long long site_id) {
  return db_.one(
      "SELECT s.auth_table, s.user_id, s.revoked_at, COALESCE(a.role, '') FROM svc_sessions s"
      " LEFT JOIN svc_site_admins a ON a.site_id = ? AND a.auth_table = s.auth_table AND a.user_id = s.user_id"
      " WHERE s.id = ?",
      [&](Params& p) { p.integer(site_id).text(session_id); }, read_session_grant);
}

std::optional<SiteAdmin> SiteAdminRepo::find(long long site_id, const std::string& auth_table, long long user_id) {
  return db_.one(
      "SELECT site_id, auth_table, user_id, role, granted_at FROM svc_site_admins"
      " WHERE site_id = ? AND auth_table = ? AND user_id = ?",
      [&](Params& p) { p.integer(site_id).text(auth_table).integer(user_id); }, read_admin);
}

bool SiteAdminRepo::grant(long long site_id, const std::string& auth_table, long long user_id,
                          const std::string& role) {
  // 1 = inserted, 2 = an existing row changed, 0 = the same role again.
  return db_.execute(
             "INSERT INTO svc_site_admins (site_id, auth_table, user_id, role, granted_at)"
             " VALUES (?, ?, ?, ?, UNIX_TIMESTAMP()) ON DUPLICATE KEY UPDATE role = VALUES(role)",
             [&](Params& p) { p.integer(site_id).text(auth_table).integer(user_id).text(role); }) == 1;
}

bool SiteAdminRepo::remove(long long site_id, const std::string& auth_table, long long user_id) {
  return db_.execute("DELETE FROM svc_site_admins WHERE site_id = ? AND auth_table = ? AND user_id = ?",
                     [&](Params& p) { p.integer(site_id).text(auth_table).integer(user_id); }) == 1;
}

std::vector<SiteAdmin> SiteAdminRepo::list(long long site_id, const TableName& table) {
  return db_.rows(
      "SELECT a.site_id, a.auth_table, a.user_id, a.role, a.granted_at, COALESCE(u.user_email, '')"
      " FROM svc_site_admins a LEFT JOIN " +
          table.quoted() +
          " u ON u.id = a.user_id WHERE a.site_id = ? AND a.auth_table = ?"
          " ORDER BY FIELD(a.role, 'owner', 'admin', 'viewer'), a.user_id",
      [&](Params& p) { p.integer(site_id).text(table.str()); },
      read_fields<SiteAdmin, &SiteAdmin::site_id, &SiteAdmin::auth_table, &SiteAdmin::user_id, &SiteAdmin::role,
                  &SiteAdmin::granted_at, &SiteAdmin::email>);
}

long long SiteAdminRepo::count_owners(long long site_id) {
  return db_
      .one(
          "SELECT COUNT(*) FROM svc_site_admins WHERE site_id = ? AND role = 'owner'",
          [&](Params& p) { p.integer(site_id); }, [](RowReader& r) { return r.integer(); })
      .value_or(0);
}

}  // namespace svc::db
