#include "db/template_version_repo.hpp"

#include <climits>

namespace svc::db {
namespace {

constexpr const char* kSelect =
    "SELECT template_id, site_id, event, locale, enabled, subject, content, `from`, bcc, priority, version, actor,"
    " action, created_at FROM svc_template_versions";

constexpr auto read_version =
    read_fields<TemplateVersion, &TemplateVersion::id, &TemplateVersion::site_id, &TemplateVersion::event,
                &TemplateVersion::locale, &TemplateVersion::enabled, &TemplateVersion::subject,
                &TemplateVersion::content, &TemplateVersion::from, &TemplateVersion::bcc, &TemplateVersion::priority,
                &TemplateVersion::version, &TemplateVersion::actor, &TemplateVersion::action,
                &TemplateVersion::created_at>;

}  // namespace

int TemplateVersionRepo::latest(long long site_id, long long template_id) {
  auto n = db_.one(
      "SELECT COALESCE(MAX(version), 0) FROM svc_template_versions WHERE template_id = ? AND site_id = ?",
      [&](Params& p) { p.integer(template_id).integer(site_id); }, [](RowReader& r) { return r.integer(); });
  return n ? static_cast<int>(*n) : 0;
}

void TemplateVersionRepo::record(const TemplateVersion& v) {
  db_.execute(
      "INSERT INTO svc_template_versions (site_id, template_id, version, event, locale, enabled, subject, content,"
      " `from`, bcc, priority, actor, action, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
      " UNIX_TIMESTAMP())",
      [&](Params& p) {
        p.integer(v.site_id).integer(v.id).integer(v.version).text(v.event).text(v.locale).flag(v.enabled);
        p.text(v.subject).text(v.content).text_or_null(v.from).text_or_null(v.bcc).integer(v.priority);
        p.text(v.actor.substr(0, 32)).text(v.action);
      });
}

std::optional<TemplateVersion> TemplateVersionRepo::find(long long site_id, long long template_id, int version) {
  return db_.one(
      std::string(kSelect) + " WHERE template_id = ? AND version = ? AND site_id = ?",
      [&](Params& p) { p.integer(template_id).integer(version).integer(site_id); }, read_version);
}

std::vector<TemplateVersion> TemplateVersionRepo::page(long long site_id, long long template_id, int before,
                                                       int limit) {
  return db_.rows(
      std::string(kSelect) + " WHERE template_id = ? AND version < ? AND site_id = ? ORDER BY version DESC LIMIT ?",
      [&](Params& p) { p.integer(template_id).integer(before > 0 ? before : INT_MAX).integer(site_id).integer(limit); },
      read_version);
}

void TemplateVersionRepo::remove_all(long long site_id, long long template_id) {
  db_.execute("DELETE FROM svc_template_versions WHERE template_id = ? AND site_id = ?",
              [&](Params& p) { p.integer(template_id).integer(site_id); });
}

}  // namespace svc::db
