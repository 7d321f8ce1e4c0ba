#pragma once
// The Templates capability of site management (design "Site administrators
// and the site management API"): a site's e-mail templates
// (svc_notifications) and their versions (svc_template_versions), for
// svc-admin (`template set|enable|disable|priority|list|show|preview|
// versions|rollback|test-send`) and /admin/sites/{site}/templates. The
// messaging API (site key) never changes a template.
//
// Every save (create, edit, rollback) adds a version holding the whole
// template; an edit names the version it was based on and is refused with
// 409 "Template changed by someone else" when a newer one exists.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/context.hpp"
#include "db/notification_repo.hpp"
#include "db/template_version_repo.hpp"
#include "manage/actor.hpp"
#include "manage/page.hpp"
#include "messaging/template.hpp"

namespace svc::manage {

// A template and its newest version (0: saved before versions were kept
// and not saved since).
struct TemplateState {
  db::Template tmpl;
  int version = 0;
};

// What a create or an edit sets; nullopt keeps the value (a create's
// defaults: locale "", enabled, from and bcc "", priority normal).
struct TemplateFields {
  std::optional<std::string> event;
  std::optional<std::string> locale;  // "" or "default" = the default locale
  std::optional<bool> enabled;
  std::optional<std::string> subject;
  std::optional<std::string> content;
  std::optional<std::string> from;  // "" = the site's email_from
  std::optional<std::string> bcc;   // "" = none
  std::optional<int> priority;      // db::kPriorityNormal or db::kPriorityBulk
};

// What is wrong with a subject or a content, for a person ("is empty",
// "must hold a single line", "holds a <script> element ..."); nullopt when
// the template parser takes it. A content is refused when it holds active
// content (docs/decisions.md "Template content never holds script").
std::optional<std::string> subject_problem(std::string_view subject);
std::optional<std::string> content_problem(std::string_view content);

// The site's templates in (event, locale) order. Any role.
Page<db::Template> list_templates(core::Context& ctx, const Actor& actor, const std::string& cursor, int limit);
// 404 "Template not found" for an id of no template of the actor's site.
TemplateState show_template(core::Context& ctx, const Actor& actor, long long id);
// The template of exactly this event and locale, if any (svc-admin names
// templates so). find_similar: also one whose event differs only in case
// or accents (the database does not tell them apart).
std::optional<db::Template> find_template(core::Context& ctx, const Actor& actor, const std::string& event,
                                          const std::string& locale, bool find_similar = false);

// Role admin. 400 with field errors for a bad field (event, subject and
// content required); 409 "Template already exists" when the site has one
// for the event and locale. A new locale of an event takes its priority.
TemplateState create_template(core::Context& ctx, const Actor& actor, const TemplateFields& fields);
// Role admin. `based_on`: the version the change was made on (nullopt:
// svc-admin, which changes whatever is there). A priority applies to every
// locale of the event.
TemplateState edit_template(core::Context& ctx, const Actor& actor, long long id, const TemplateFields& fields,
                            std::optional<int> based_on);
// Role admin: a new version equal to `version` (404 "Version not found").
TemplateState rollback_template(core::Context& ctx, const Actor& actor, long long id, int version);
// Role admin: the template and its versions.
void delete_template(core::Context& ctx, const Actor& actor, long long id);

// The template's versions, newest first. Any role.
Page<db::TemplateVersion> template_versions(core::Context& ctx, const Actor& actor, long long id,
                                            const std::string& cursor, int limit);
db::TemplateVersion template_version(core::Context& ctx, const Actor& actor, long long id, int version);

// The mail the template would make with `data`, as svc-sender sends it:
// the subject, the HTML part and the text part, and the placeholders the
// subject and content use. `draft_subject` / `draft_content` replace the
// saved ones (an editor's unsaved text; 400 when they do not parse). 400
// (field "data") when the merged HTML would hold active content. Any role.
struct Preview {
  std::string subject;
  std::string html;
  std::string text;
  std::vector<std::string> placeholders;
};
Preview preview_template(core::Context& ctx, const Actor& actor, long long id, const messaging::MergeValues& data,
                         const std::optional<std::string>& draft_subject,
                         const std::optional<std::string>& draft_content);

// Role admin: queues the template merged with `data` through the outbox,
// to the admin's own address (the operator names `operator_to`), never to
// the template's or the site's copies. 409 "E-mail is disabled for this
// site" when it is. Returns the outbox row's id.
long long test_send(core::Context& ctx, const Actor& actor, long long id, const messaging::MergeValues& data,
                    const std::string& operator_to = "");

}  // namespace svc::manage
