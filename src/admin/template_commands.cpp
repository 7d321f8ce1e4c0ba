#include "admin/template_commands.hpp"

#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "core/text.hpp"
#include "db/notification_repo.hpp"
#include "http/validate.hpp"
#include "messaging/address.hpp"
#include "messaging/builtin_templates.hpp"
#include "messaging/html_text.hpp"
#include "messaging/locale.hpp"

namespace svc::admin {
namespace {

constexpr std::size_t kMaxSubjectBytes = 998;  // svc_notifications.subject

// One line: trailing line breaks are dropped, any other control is an error.
std::string read_subject(const std::string& path) {
  std::string s = read_text_file("subject-file", path);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.empty()) throw std::runtime_error("--subject-file " + path + " is empty");
  if (core::has_controls(s)) throw std::runtime_error("--subject-file " + path + " must hold a single line");
  if (s.size() > kMaxSubjectBytes) {
    throw std::runtime_error("--subject-file " + path + " is longer than " + std::to_string(kMaxSubjectBytes) +
                             " bytes");
  }
  if (!core::is_valid_utf8(s)) throw std::runtime_error("--subject-file " + path + " is not UTF-8");
  return s;
}

std::string read_content(const std::string& path) {
  std::string s = read_text_file("content-file", path);
  if (s.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw std::runtime_error("--content-file " + path + " is empty");
  }
  if (!core::is_valid_utf8(s)) throw std::runtime_error("--content-file " + path + " is not UTF-8");
  return s;
}

// "" or "none" clears; else "Name <addr>" or a bare address.
std::string checked_from(const std::string& v) {
  if (v.empty() || v == "none") return "";
  if (core::has_controls(v)) throw UsageError("--from must not contain control characters");
  const auto box = messaging::parse_mailbox(v);
  if (!http::is_valid_email(box.address)) {
    throw UsageError("--from: '" + box.address + "' is not a valid e-mail address");
  }
  return v;
}

// "" or "none" clears; else a list of bare addresses, stored as "a, b".
std::string checked_bcc(const std::string& v) {
  if (v.empty() || v == "none") return "";
  std::string out;
  for (const auto& a : messaging::split_addresses(v)) {
    if (!http::is_valid_email(a)) throw UsageError("--bcc: '" + a + "' is not a valid e-mail address");
    out += (out.empty() ? "" : ", ") + a;
  }
  return out;
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

db::Template require_template(db::Database& db, long long site_id, const std::string& event,
                              const std::string& locale = "") {
  auto t = db::NotificationRepo(db).find(site_id, event, locale);
  if (!t) {
    throw std::runtime_error("no template '" + event + "'" + locale_note(locale) + " for site " +
                             std::to_string(site_id));
  }
  if (t->event != event) {
    throw std::runtime_error("no template '" + event + "' for site " + std::to_string(site_id) + " (there is '" +
                             t->event + "'; event names match exactly)");
  }
  return *t;
}

int set_enabled(const Args& args, const std::string& config_path, bool enabled) {
  args.allow_only({"site", "event", "locale"});
  const long long site_id = args.required_integer("site");
  const std::string event = args.required("event");
  const std::string locale = locale_option(args);
  CommandEnv env(config_path);
  const auto t = require_template(env.db, site_id, event, locale);
  db::NotificationRepo(env.db).set_enabled(t.id, enabled);
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
  const std::string locale = locale_option(args);
  const std::string subject = read_subject(args.required("subject-file"));
  const std::string content = read_content(args.required("content-file"));
  auto from = args.get("from");
  auto bcc = args.get("bcc");
  auto enabled = args.get("enabled");
  if (from) *from = checked_from(*from);
  if (bcc) *bcc = checked_bcc(*bcc);
  const bool enable = enabled ? parse_bool("enabled", *enabled) : true;

  CommandEnv env(config_path);
  env.site(site_id);
  db::NotificationRepo repo(env.db);
  const auto existing = repo.find(site_id, event, locale);
  // The column's collation ignores case, accents and trailing blanks, so the
  // unique key would make this an update of a template the API would never
  // match to `event` (the API matches exactly).
  if (existing && existing->event != event) {
    throw std::runtime_error("site " + std::to_string(site_id) + " already has template '" + existing->event +
                             "', which the database does not tell apart from '" + event + "'");
  }
  db::Template t = existing.value_or(db::Template{});
  if (!existing && !locale.empty()) {
    // A new language of an existing template: as bulk as the default one.
    if (auto base = repo.find(site_id, event)) t.priority = base->priority;
  }
  t.site_id = site_id;
  t.event = event;
  t.locale = locale;
  t.subject = subject;
  t.content = content;
  if (from) t.from = *from;
  if (bcc) t.bcc = *bcc;
  if (enabled || !existing) t.enabled = enable;  // an update keeps the state unless told
  const long long id = repo.upsert(t);
  std::printf("template '%s'%s of site %lld %s (id %lld, %s, from %s, bcc %s)\n", event.c_str(),
              locale_note(locale).c_str(), site_id, existing ? "updated" : "created", id,
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
  CommandEnv env(config_path);
  const auto t = require_template(env.db, site_id, event);
  db::NotificationRepo(env.db).set_priority(t.id, name == "bulk" ? db::kPriorityBulk : db::kPriorityNormal);
  std::printf("template '%s' of site %lld: priority %s\n", event.c_str(), site_id, name.c_str());
  return 0;
}

// --builtin: the templates of svc's own account mail (issue 26), in each
// language svc ships (issue 27), each with its plain-text part (what the text/plain alternative of the mail holds)
// and, with --site, whether that site overrides it.
int list_builtin(const Args& args, const std::string& config_path) {
  std::optional<CommandEnv> env;
  std::optional<db::Site> site;
  if (args.get("site")) {
    env.emplace(config_path);
    site = env->site(args.required_integer("site"));
  }
  for (const auto& b : messaging::builtin_templates()) {
    std::printf("%s\n  subject: %s\n  fields:  %s\n", b.event, b.subject, b.fields);
    if (site) {
      const bool own = db::NotificationRepo(env->db)
                           .find_enabled(site->id, b.event, messaging::locale_fallbacks(b.language))
                           .has_value();
      std::printf("  site %lld: %s\n", site->id, own ? "its own enabled template" : "this built-in one");
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
  CommandEnv env(config_path);
  const db::Site site = env.site(args.required_integer("site"));
  return print_listing(
      db::NotificationRepo(env.db).list(site.id), "no templates for site " + std::to_string(site.id),
      "id\tevent\tlocale\tenabled\tpriority\tfrom\tbcc\tsubject", [](const db::Template& t) {
        std::printf("%lld\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.id, t.event.c_str(), locale_label(t.locale).c_str(),
                    t.enabled ? "yes" : "no", t.priority == db::kPriorityBulk ? "bulk" : "normal",
                    t.from.empty() ? "-" : t.from.c_str(), t.bcc.empty() ? "-" : t.bcc.c_str(), t.subject.c_str());
      });
}

}  // namespace svc::admin
