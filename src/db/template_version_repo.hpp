#pragma once
// svc_template_versions (sql/037): every saved state of a site's e-mail
// templates, numbered per template. Only manage/templates uses it.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/notification_repo.hpp"

namespace svc::db {

// One saved state: the template's columns as saved (Template::id is the
// template's id), its number, who saved it and how.
struct TemplateVersion : Template {
  int version = 0;
  std::string actor;   // a user id, or "operator"
  std::string action;  // "create", "update", "rollback", "import"
  long long created_at = 0;
};

class TemplateVersionRepo {
 public:
  explicit TemplateVersionRepo(Database& db) : db_(db) {}
  // The newest version number of the template; 0 when it has none.
  int latest(long long site_id, long long template_id);
  // Stores `v` (v.id = the template, v.version its number) at now.
  void record(const TemplateVersion& v);
  std::optional<TemplateVersion> find(long long site_id, long long template_id, int version);
  // The template's versions below `before` (0 = from the newest), newest
  // first, at most `limit`.
  std::vector<TemplateVersion> page(long long site_id, long long template_id, int before, int limit);
  void remove_all(long long site_id, long long template_id);

 private:
  Database& db_;
};

}  // namespace svc::db
