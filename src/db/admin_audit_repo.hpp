#pragma once

#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

// A row of svc_admin_audit (sql/036): one change to a site by one of its
// administrators or by the operator. Never a secret in any field.
struct AdminAuditRow {
  long long id = 0;
  long long site_id = 0;
  std::string actor;   // the admin's user id, or "operator"
  std::string action;  // e.g. "user.disable", "template.update"
  std::string target;  // what it acted on, e.g. "user 42"
  std::string detail;
  std::string ip;
  std::string request_id;
  long long created_at = 0;  // unix seconds
};

class AdminAuditRepo {
 public:
  explicit AdminAuditRepo(Database& db) : db_(db) {}
  void record(const AdminAuditRow& row);
  // The site's rows newest first, with an id below `before_id` (0 = from
  // the newest), at most `limit`.
  std::vector<AdminAuditRow> page(long long site_id, long long before_id, int limit);

 private:
  Database& db_;
};

}  // namespace svc::db
