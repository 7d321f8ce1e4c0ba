#pragma once

#include <string>

#include "db/database.hpp"

namespace svc::db {

// A security event for svc_audit_log. Never put a password, token, code or
// key into any field.
struct AuditEvent {
  std::string event;       // login_ok, login_failed, sign_up, reset_requested, ...
  std::string auth_table;  // "" = none
  long long user_id = 0;   // 0 = unknown
  long long site_id = 0;   // 0 = none
  long long pool_id = 0;   // the user's pool (sql/034); 0 = none (no user named)
  std::string ip;
  std::string user_agent;
  std::string request_id;
  std::string detail;
};

class AuditRepo {
 public:
  explicit AuditRepo(Database& db) : db_(db) {}
  void record(const AuditEvent& e);

 private:
  Database& db_;
};

}  // namespace svc::db
