#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/table_name.hpp"

namespace svc::db {

// A row of svc_site_admins (sql/036): a user's role on a site.
struct SiteAdmin {
  long long site_id = 0;
  std::string auth_table;
  long long user_id = 0;
  std::string role;  // owner | admin | viewer
  long long granted_at = 0;
  std::string email;  // the user's address, when a listing joins it; "" otherwise
};

// A session (svc_sessions) with its user's role on one site: the site
// management guard reads both in one round trip.
struct SessionGrant {
  std::string auth_table;  // the session's
  long long user_id = 0;   // the session's
  std::optional<long long> revoked_at;
  std::string role;  // "" = no grant on the site
};

class SiteAdminRepo {
 public:
  explicit SiteAdminRepo(Database& db) : db_(db) {}
  std::optional<SiteAdmin> find(long long site_id, const std::string& auth_table, long long user_id);
  // Grants `role`, or changes the role of an existing grant. True when a
  // new grant was made.
  bool grant(long long site_id, const std::string& auth_table, long long user_id, const std::string& role);
  // True when a grant was removed.
  bool remove(long long site_id, const std::string& auth_table, long long user_id);
  // The site's grants, owners first, each with the user's address read
  // from its auth table.
  std::vector<SiteAdmin> list(long long site_id, const TableName& table);
  long long count_owners(long long site_id);
  // The session `session_id` and its user's grant on `site_id`.
  std::optional<SessionGrant> session_grant(const std::string& session_id, long long site_id);

 private:
  Database& db_;
};

}  // namespace svc::db
