#include "admin/template_commands.hpp"

#include <rapidjson/document.h>

#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "admin/manage_env.hpp"
#include "app/services.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "manage/templates.hpp"
#include "messaging/builtin_templates.hpp"
#include "messaging/handlers.hpp"
#include "messaging/html_text.hpp"
#include "messaging/locale.hpp"

namespace svc::admin {
namespace {

// The operator on --site N, through the Templates service (manage/templates.hpp).

// The file's text, its trailing line breaks dropped for a subject, checked
// as the service checks it; std::runtime_error naming the file otherwise.
std::string read_checked(const char* option, const std::string& path, bool subject) {
  std::string s = read_text_file(option, path);
  if (subject) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  }
  auto problem = subject ? manage::subject_problem(s) : manage::content_problem(s);
  if (problem) throw std::runtime_error(std::string("--") + option + " " + path + " " + *problem);
  return s;
}

// "" or "none" clears (the site's default sender, no extra BCC).
std::optional<std::string> cleared_or(std::optional<std::string> v) {
  if (v && *v == "none") v = "";
  return v;
}

// --locale: "" (absent, or "default") = the template's default locale.
std::string locale_option(const Args& args) {
  const std::string v = args.get("locale").value_or("");
  if (v.empty() || v == "default") return "";
  if (!messaging::is_locale_shape(v))
    throw UsageError("--locale: '" + v + "' is not a BCP 47 language tag (de, de-AT)");
  return messaging::normalize_locale(v);
}

std::string locale_label(const std::string& locale) { return locale.empty() ? "default" : locale; }

// " (locale de)" in messages about a template's language; "" for the default.
std::string locale_note(const std::string& locale) { return locale.empty() ? "" : " (locale " + locale + ")"; }

const char* priority_name(int priority) { return priority == db::kPriorityBulk ? "bulk" : "normal"; }

// "2026-11-29 10:00:00Z", "-" for none.
std::string when(long long t) { return readable_time(t); }

db::Template require_template(ManageEnv& m, const std::string& event, const std::string& locale = "") {
  const std::string site = std::to_string(m.actor.site_id);
  auto t = manage::find_template(m.ctx, m.actor, event, locale, true);
  if (!t) throw std::runtime_error("no template '" + event + "'" + locale_note(locale) + " for site " + site);
  if (t->event != event) {
    throw std::runtime_error("no template '" + event + "' for site " + site + " (there is '" + t->event +
                             "'; event names match exactly)");
  }
  return *t;
}

// The template a command names: --id ID, or --event E [--locale L].
long long named_template(ManageEnv& m, const Args& args) {
  if (auto id = args.get("id")) {
    auto parsed = core::parse_id(*id);
    if (!parsed) throw UsageError("--id must be a template id");
    return *parsed;
  }
  return require_template(m, args.required("event"), locale_option(args)).id;
}

// --data JSON: the sample merge values of a preview or test send.
messaging::MergeValues data_option(const Args& args) {
  const std::string text = args.get("data").value_or("{}");
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  if (doc.HasParseError() || !doc.IsObject())
    throw UsageError("--data must be a JSON object, e.g. '{\"name\":\"Ada\"}'");
  return messaging::values_from(&doc);
}

int set_enabled(const Args& args, const std::string& config_path, bool enabled) {
  args.allow_only({"site", "event", "locale"});
  const long long site_id = args.required_integer("site");
  const std::string event = args.required("event");
  const std::string locale = locale_option(args);
  ManageEnv m(config_path);
  m.act_on(site_id);
  const auto t = require_template(m, event, locale);
  manage::TemplateFields f;
  f.enabled = enabled;
  manage::edit_template(m.ctx, m.actor, t.id, f, std::nullopt);
  std::printf("template '%s'%s of site %lld %s\n", event.c_str(), locale_note(locale).c_str(), site_id,
              enabled ? "enabled" : "disabled");
  return 0;
}

}  // namespace

int cmd_template_set(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "event", "subject-file", "content-file", "from", "bcc", "enabled", "locale"});
  const long long site_id = args.required_integer("site");
  const std::string event = args.required("event");
  check_name("event", event);
  manage::TemplateFields f;
  f.event = event;
  f.locale = locale_option(args);
  f.subject = read_checked("subject-file", args.required("subject-file"), true);
  f.content = read_checked("content-file", args.required("content-file"), false);
  f.from = cleared_or(args.get("from"));
  f.bcc = cleared_or(args.get("bcc"));
  if (auto enabled = args.get("enabled")) f.enabled = parse_bool("enabled", *enabled);

  ManageEnv m(config_path);
  m.act_on(site_id);
  const auto existing = manage::find_template(m.ctx, m.actor, event, *f.locale, true);
  // The column's collation ignores case, accents and trailing blanks, so the
  // unique key would make this an update of a template the API would never
  // match to `event` (the API matches exactly).
  if (existing && existing->event != event) {
    throw std::runtime_error("site " + std::to_string(site_id) + " already has template '" + existing->event +
                             "', which the database does not tell apart from '" + event + "'");
  }
  // An update keeps from, bcc and the enabled state unless told.
  const manage::TemplateState s = existing ? manage::edit_template(m.ctx, m.actor, existing->id, f, std::nullopt)
                                           : manage::create_template(m.ctx, m.actor, f);
  const db::Template& t = s.tmpl;
  std::printf("template '%s'%s of site %lld %s (id %lld, %s, from %s, bcc %s)\n", event.c_str(),
              locale_note(t.locale).c_str(), site_id, existing ? "updated" : "created", t.id,
              t.enabled ? "enabled" : "disabled", t.from.empty() ? "(site default)" : t.from.c_str(),
              t.bcc.empty() ? "(none)" : t.bcc.c_str());
  return 0;
}

int cmd_template_enable(const Args& args, const std::string& config_path) {
  return set_enabled(args, config_path, true);
}

int cmd_template_disable(const Args& args, const std::string& config_path) {
  return set_enabled(args, config_path, false);
}

int cmd_template_priority(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "event", "priority"});
  const long long site_id = args.required_integer("site");
  const std::string event = args.required("event");
  const std::string name = args.required("priority");
  if (name != "normal" && name != "bulk") throw UsageError("--priority must be normal or bulk");
  ManageEnv m(config_path);
  m.act_on(site_id);
  const auto t = require_template(m, event);
  manage::TemplateFields f;
  f.priority = name == "bulk" ? db::kPriorityBulk : db::kPriorityNormal;
  manage::edit_template(m.ctx, m.actor, t.id, f, std::nullopt);
  std::printf("template '%s' of site %lld: priority %s\n", event.c_str(), site_id, name.c_str());
  return 0;
}

// --builtin: the templates of svc's own account mail (issue 26), in each
// language svc ships (issue 27), each with its plain-text part (what the text/plain alternative of the mail holds)
// and, with --site, whether that site overrides it.
int list_builtin(const Args& args, const std::string& config_path) {
  std::optional<ManageEnv> m;
  if (args.get("site")) m.emplace(config_path, args);
  for (const auto& b : messaging::builtin_templates()) {
    std::printf("%s\n  subject: %s\n  fields:  %s\n", b.event, b.subject, b.fields);
    if (m) {
      bool own = false;
      for (const auto& locale : messaging::locale_fallbacks(b.language)) {
        auto t = manage::find_template(m->ctx, m->actor, b.event, locale);
        if (t && t->enabled) {
          own = true;
          break;
        }
      }
      std::printf("  site %lld: %s\n", m->actor.site_id, own ? "its own enabled template" : "this built-in one");
    }
    std::printf("  language: %s\n", b.language);
    std::printf("  html:\n    %s\n  text:\n", b.content);
    // The text/plain part every mail of the template gets, indented.
    std::istringstream lines(messaging::html_to_text(b.content));
    for (std::string line; std::getline(lines, line);) std::printf(line.empty() ? "\n" : "    %s\n", line.c_str());
  }
  return 0;
}

int cmd_template_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "builtin"});
  if (args.flag("builtin")) return list_builtin(args, config_path);
  ManageEnv m(config_path);
  m.act_on(args.required_integer("site"));
  std::vector<db::Template> all;
  std::string cursor;
  do {
    auto page = manage::list_templates(m.ctx, m.actor, cursor, manage::kMaxPage);
    all.insert(all.end(), page.rows.begin(), page.rows.end());
    cursor = page.next_cursor;
  } while (!cursor.empty());
  return print_listing(all, "no templates for site " + std::to_string(m.actor.site_id),
                       "id\tevent\tlocale\tenabled\tpriority\tfrom\tbcc\tsubject", [](const db::Template& t) {
                         std::printf("%lld\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.id, t.event.c_str(),
                                     locale_label(t.locale).c_str(), t.enabled ? "yes" : "no",
                                     priority_name(t.priority), t.from.empty() ? "-" : t.from.c_str(),
                                     t.bcc.empty() ? "-" : t.bcc.c_str(), t.subject.c_str());
                       });
}

int cmd_template_show(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "id", "event", "locale"});
  ManageEnv m(config_path);
  m.act_on(args.required_integer("site"));
  const manage::TemplateState s = manage::show_template(m.ctx, m.actor, named_template(m, args));
  const db::Template& t = s.tmpl;
  std::printf("id:        %lld\nevent:     %s\nlocale:    %s\nenabled:   %s\npriority:  %s\n", t.id, t.event.c_str(),
              locale_label(t.locale).c_str(), t.enabled ? "yes" : "no", priority_name(t.priority));
  std::printf("from:      %s\nbcc:       %s\nversion:   %d\nsubject:   %s\ncontent:\n%s\n",
              t.from.empty() ? "(site default)" : t.from.c_str(), t.bcc.empty() ? "(none)" : t.bcc.c_str(), s.version,
              t.subject.c_str(), t.content.c_str());
  return 0;
}

int cmd_template_preview(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "id", "event", "locale", "data"});
  const messaging::MergeValues data = data_option(args);
  ManageEnv m(config_path);
  m.act_on(args.required_integer("site"));
  const manage::Preview p =
      manage::preview_template(m.ctx, m.actor, named_template(m, args), data, std::nullopt, std::nullopt);
  std::string fields;
  for (const auto& name : p.placeholders) fields += (fields.empty() ? "" : ", ") + name;
  std::printf("subject: %s\nfields:  %s\nhtml:\n%s\ntext:\n%s\n", p.subject.c_str(),
              fields.empty() ? "(none)" : fields.c_str(), p.html.c_str(), p.text.c_str());
  return 0;
}

int cmd_template_versions(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "id", "event", "locale", "limit", "cursor"});
  ManageEnv m(config_path);
  m.act_on(args.required_integer("site"));
  const int limit = manage::page_limit(args.get("limit") ? std::optional(args.integer("limit", 0)) : std::nullopt);
  auto page =
      manage::template_versions(m.ctx, m.actor, named_template(m, args), args.get("cursor").value_or(""), limit);
  print_listing(page.rows, "no versions", "version  saved                 actor     action    enabled  subject",
                [](const db::TemplateVersion& v) {
                  std::printf("%-7d  %s  %-8s  %-8s  %-7s  %s\n", v.version, when(v.created_at).c_str(),
                              v.actor.c_str(), v.action.c_str(), v.enabled ? "yes" : "no", v.subject.c_str());
                });
  if (!page.next_cursor.empty()) std::printf("more: --cursor %s\n", page.next_cursor.c_str());
  return 0;
}

int cmd_template_rollback(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "id", "event", "locale", "to-version"});
  ManageEnv m(config_path);
  m.act_on(args.required_integer("site"));
  const long long version = args.required_integer("to-version");
  if (version < 1 || version > INT32_MAX) throw UsageError("--to-version must be a version number");
  const manage::TemplateState s =
      manage::rollback_template(m.ctx, m.actor, named_template(m, args), static_cast<int>(version));
  std::printf("template %lld of site %lld: version %d is version %lld again\n", s.tmpl.id, m.actor.site_id, s.version,
              version);
  return 0;
}

int cmd_template_test_send(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "id", "event", "locale", "to", "data"});
  const std::string to = args.required("to");
  const messaging::MergeValues data = data_option(args);
  ManageEnv m(config_path);
  m.act_on(args.required_integer("site"));
  const long long outbox_id = manage::test_send(m.ctx, m.actor, named_template(m, args), data, to);
  std::printf("queued to %s (outbox %lld)\n", to.c_str(), outbox_id);
  return 0;
}

int cmd_template_delete(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "id", "event", "locale"});
  ManageEnv m(config_path);
  m.act_on(args.required_integer("site"));
  const long long id = named_template(m, args);
  manage::delete_template(m.ctx, m.actor, id);
  std::printf("template %lld of site %lld deleted, with its versions\n", id, m.actor.site_id);
  return 0;
}

}  // namespace svc::admin
