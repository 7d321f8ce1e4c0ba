#include "manage/templates.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "core/text.hpp"
#include "db/sql_codes.hpp"
#include "http/api_error.hpp"
#include "http/site_cache.hpp"
#include "http/validate.hpp"
#include "manage/audit.hpp"
#include "messaging/address.hpp"
#include "messaging/compose.hpp"
#include "messaging/html_text.hpp"
#include "messaging/locale.hpp"
#include "messaging/outbox.hpp"
#include "webhooks/events.hpp"

namespace svc::manage {
namespace {

constexpr std::size_t kMaxSubjectBytes = 998;      // svc_notifications.subject
constexpr std::size_t kMaxContentBytes = 1000000;  // under the API's 1 MiB body
constexpr std::size_t kMaxBccBytes = 2048;         // svc_notifications.bcc
constexpr int kDuplicateKey = 1062;                // ER_DUP_ENTRY

[[noreturn]] void not_found() { throw http::ApiError::failed(404, "Template not found"); }

std::string target_of(long long id) { return "template " + std::to_string(id); }

// "event E, locale de, version 3" for the audit.
std::string detail_of(const db::Template& t, int version) {
  return "event " + t.event + (t.locale.empty() ? "" : ", locale " + t.locale) + ", version " + std::to_string(version);
}

// --- active content: what a browser would run -----------------------------

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// The text lower-cased with character references of ASCII decoded and
// whitespace and controls dropped: "jav&#x61;&#9;script:" reads "javascript:".
std::string flattened(std::string_view html) {
  std::string out;
  out.reserve(html.size());
  for (std::size_t i = 0; i < html.size(); ++i) {
    char c = html[i];
    if (c == '&' && i + 2 < html.size() && html[i + 1] == '#') {
      const bool hex = html[i + 2] == 'x' || html[i + 2] == 'X';
      std::size_t j = i + (hex ? 3 : 2);
      long value = 0;
      const std::size_t digits_from = j;
      // Browsers take any number of leading zeros: read every digit, and
      // stop growing the value once it is past any code point.
      while (j < html.size() && std::isxdigit(static_cast<unsigned char>(html[j])) &&
             (hex || std::isdigit(static_cast<unsigned char>(html[j])))) {
        const char d = static_cast<char>(std::tolower(static_cast<unsigned char>(html[j])));
        if (value < 0x110000) value = value * (hex ? 16 : 10) + (d <= '9' ? d - '0' : d - 'a' + 10);
        ++j;
      }
      if (j > digits_from && value < 128) {
        c = static_cast<char>(value);
        i = j < html.size() && html[j] == ';' ? j : j - 1;
      }
    } else if (c == '&') {
      for (std::string_view name : {"&colon;", "&tab;", "&newline;"}) {
        if (core::ascii_lower(html.substr(i, name.size())) == name) {
          c = name[1] == 'c' ? ':' : ' ';
          i += name.size() - 1;
          break;
        }
      }
    }
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// The first thing in `html` a browser would run (or load as a document of
// its own), described for a person; nullopt when there is none: a script,
// iframe, object or embed element, an event handler attribute (on...), a
// javascript:, vbscript: or data:text/html address.
std::optional<std::string> active_content(std::string_view html) {
  for (std::size_t i = html.find('<'); i != std::string_view::npos; i = html.find('<', i + 1)) {
    if (html.compare(i, 4, "<!--") == 0) {
      i = html.find("-->", i);
      if (i == std::string_view::npos) break;
      continue;
    }
    std::size_t j = i + 1;
    while (j < html.size() && std::isalnum(static_cast<unsigned char>(html[j]))) ++j;
    const std::string tag = core::ascii_lower(html.substr(i + 1, j - i - 1));
    if (tag.empty()) continue;
    if (tag == "script" || tag == "iframe" || tag == "object" || tag == "embed") {
      return "holds a <" + tag + "> element";
    }
    // The attributes, up to the end of the tag.
    while (j < html.size() && html[j] != '>') {
      if (is_space(html[j]) || html[j] == '/') {
        ++j;
        continue;
      }
      const std::size_t name_from = j;
      while (j < html.size() && !is_space(html[j]) && html[j] != '=' && html[j] != '>' && html[j] != '/') ++j;
      const std::string name = core::ascii_lower(html.substr(name_from, j - name_from));
      if (name.size() > 2 && name.compare(0, 2, "on") == 0) return "holds an event handler attribute (" + name + ")";
      while (j < html.size() && is_space(html[j])) ++j;
      if (j >= html.size() || html[j] != '=') continue;
      ++j;
      while (j < html.size() && is_space(html[j])) ++j;
      if (j < html.size() && (html[j] == '"' || html[j] == '\'')) {
        const std::size_t close = html.find(html[j], j + 1);
        j = close == std::string_view::npos ? html.size() : close + 1;
      } else {
        while (j < html.size() && !is_space(html[j]) && html[j] != '>') ++j;
      }
    }
    if (j >= html.size()) break;
    i = j;
  }
  const std::string flat = flattened(html);
  for (std::string_view scheme : {"javascript:", "vbscript:", "data:text/html"}) {
    if (flat.find(scheme) != std::string::npos) return "holds a " + std::string(scheme) + " address";
  }
  return std::nullopt;
}

// --- fields -----------------------------------------------------------------

bool is_event_name(std::string_view v) {
  bool ok = !v.empty() && v.size() <= 190;
  for (char c : v) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == ':');
  }
  return ok;
}

// The checked fields, normalised (locale lower-case, bcc "a, b"), with a
// field error for each bad one.
TemplateFields checked(const TemplateFields& in) {
  TemplateFields out = in;
  std::vector<http::FieldError> errors;
  auto fail = [&](const char* field, std::string message) { errors.push_back({field, std::move(message)}); };
  if (in.event && !is_event_name(*in.event)) fail("event", "event must be 1-190 characters of A-Z a-z 0-9 - _ . :");
  if (in.locale) {
    if (*in.locale == "default") {
      out.locale = "";
    } else if (!in.locale->empty() && !messaging::is_locale_shape(*in.locale)) {
      fail("locale", "locale must be a BCP 47 language tag (de, de-AT)");
    } else {
      out.locale = messaging::normalize_locale(*in.locale);
    }
  }
  if (in.subject) {
    if (auto problem = subject_problem(*in.subject)) fail("subject", "subject " + *problem);
  }
  if (in.content) {
    if (auto problem = content_problem(*in.content)) fail("content", "content " + *problem);
  }
  if (in.from && !in.from->empty()) {
    const auto box = messaging::parse_mailbox(*in.from);
    if (core::has_controls(*in.from) || in.from->size() > 320 || !http::is_valid_email(box.address)) {
      fail("from", "'" + core::strip_controls(*in.from) + "' is not a valid e-mail address");
    }
  }
  if (in.bcc) {
    std::string list;
    for (const auto& a : messaging::split_addresses(*in.bcc)) {
      if (!http::is_valid_email(a)) fail("bcc", "'" + core::strip_controls(a) + "' is not a valid e-mail address");
      list += (list.empty() ? "" : ", ") + a;
    }
    if (list.size() > kMaxBccBytes) fail("bcc", "bcc must be at most 2048 bytes");
    out.bcc = list;
  }
  if (in.priority && *in.priority != db::kPriorityNormal && *in.priority != db::kPriorityBulk) {
    fail("priority", "priority must be normal or bulk");
  }
  if (!errors.empty()) throw http::ApiError::validation(errors);
  return out;
}

void apply(const TemplateFields& f, db::Template& t) {
  if (f.event) t.event = *f.event;
  if (f.locale) t.locale = *f.locale;
  if (f.enabled) t.enabled = *f.enabled;
  if (f.subject) t.subject = *f.subject;
  if (f.content) t.content = *f.content;
  if (f.from) t.from = *f.from;
  if (f.bcc) t.bcc = *f.bcc;
  if (f.priority) t.priority = *f.priority;
}

// --- saving -----------------------------------------------------------------

// Inside a transaction: stores `t` as a new version of its template
// (first `before` as version 1 when the template has none yet). Returns
// the new version's number.
int record_version(core::Context& ctx, const Actor& actor, const db::Template& t, const std::string& action,
                   const db::Template* before = nullptr) {
  db::TemplateVersionRepo versions(ctx.db);
  int latest = versions.latest(t.site_id, t.id);
  db::TemplateVersion v;
  v.actor = actor.audit_name();
  if (latest == 0 && before) {
    static_cast<db::Template&>(v) = *before;
    v.version = ++latest;
    v.action = "import";
    versions.record(v);
  }
  static_cast<db::Template&>(v) = t;
  v.version = latest + 1;
  v.action = action;
  versions.record(v);
  return v.version;
}

[[noreturn]] void exists() { throw http::ApiError::failed(409, "Template already exists"); }

// Inside a transaction: 409 when another template of the site has the
// event and locale of `t` (the column's collation ignores case and accents).
void refuse_duplicate(core::Context& ctx, const db::Template& t) {
  auto other = db::NotificationRepo(ctx.db).find(t.site_id, t.event, t.locale);
  if (other && other->id != t.id) exists();
}

// Runs a save; a duplicate key from a concurrent save of the same event
// and locale is the same 409.
template <class Fn>
auto saving(core::Context& ctx, Fn&& fn) -> decltype(fn()) {
  try {
    return webhooks::atomically(ctx.db, fn);
  } catch (const http::ApiError&) {
    throw;
  } catch (const std::exception& e) {
    if (db::sql_code(e) == kDuplicateKey) exists();
    throw;
  }
}

// The template alone, for what needs no version of it (a preview, a test
// send, the versions' own routes); 404 when the site has none with this id.
db::Template template_row(core::Context& ctx, const Actor& actor, long long id) {
  auto t = db::NotificationRepo(ctx.db).find_by_id(actor.site_id, id);
  if (!t) not_found();
  return *t;
}

// Inside a transaction: the template, locked; 404 when the site has none with this id.
db::Template locked(core::Context& ctx, const Actor& actor, long long id) {
  auto t = db::NotificationRepo(ctx.db).find_by_id(actor.site_id, id, true);
  if (!t) not_found();
  return *t;
}

// Inside a transaction: `before` becomes `after` (same id), a version and an audit row.
int save(core::Context& ctx, const Actor& actor, const db::Template& before, const db::Template& after,
         const std::string& verb) {
  db::NotificationRepo(ctx.db).update(after);
  const int version = record_version(ctx, actor, after, verb, &before);
  audit(ctx, actor, "templates." + verb, target_of(after.id), detail_of(after, version));
  return version;
}

// Inside a transaction: the other locales of the template's event get its priority.
void spread_priority(core::Context& ctx, const Actor& actor, const db::Template& t) {
  for (const auto& other : db::NotificationRepo(ctx.db).list(t.site_id)) {
    if (other.id == t.id || other.event != t.event || other.priority == t.priority) continue;
    db::Template changed = locked(ctx, actor, other.id);
    changed.priority = t.priority;
    save(ctx, actor, other, changed, "update");
  }
}

db::Site site_of(core::Context& ctx, const Actor& actor) {
  auto site = http::find_site(ctx, actor.site_id);
  if (!site) throw http::ApiError::failed(404, "Site not found");
  return *site;
}

}  // namespace

std::optional<std::string> subject_problem(std::string_view subject) {
  if (subject.empty()) return "is empty";
  if (core::has_controls(subject)) return "must hold a single line";
  if (subject.size() > kMaxSubjectBytes) return "is longer than " + std::to_string(kMaxSubjectBytes) + " bytes";
  if (!core::is_valid_utf8(subject)) return "is not UTF-8";
  return std::nullopt;
}

std::optional<std::string> content_problem(std::string_view content) {
  if (content.find_first_not_of(" \t\r\n") == std::string_view::npos) return "is empty";
  if (content.size() > kMaxContentBytes) return "is longer than " + std::to_string(kMaxContentBytes) + " bytes";
  if (!core::is_valid_utf8(content)) return "is not UTF-8";
  if (content.find('\0') != std::string_view::npos) return "holds a NUL character";
  if (auto active = active_content(content)) return *active + ", which mail must not carry";
  return std::nullopt;
}

Page<db::Template> list_templates(core::Context& ctx, const Actor& actor, const std::string& cursor, int limit) {
  const std::string position = read_cursor(ctx, "templates", actor.site_id, cursor);
  const std::size_t cut = position.find('\x1f');
  auto rows = db::NotificationRepo(ctx.db).page(actor.site_id, position.substr(0, cut),
                                                cut == std::string::npos ? "" : position.substr(cut + 1), limit + 1);
  return paged(ctx, "templates", actor.site_id, std::move(rows), limit,
               [](const db::Template& last) { return last.event + '\x1f' + last.locale; });
}

TemplateState show_template(core::Context& ctx, const Actor& actor, long long id) {
  db::Template t = template_row(ctx, actor, id);
  return {std::move(t), db::TemplateVersionRepo(ctx.db).latest(actor.site_id, id)};
}

std::optional<db::Template> find_template(core::Context& ctx, const Actor& actor, const std::string& event,
                                          const std::string& locale, bool find_similar) {
  auto t = db::NotificationRepo(ctx.db).find(actor.site_id, event, locale);
  if (t && t->event != event && !find_similar) return std::nullopt;
  return t;
}

TemplateState create_template(core::Context& ctx, const Actor& actor, const TemplateFields& fields) {
  require_role(actor, Role::kAdmin);
  std::vector<http::FieldError> missing;
  if (!fields.event) missing.push_back({"event", "event is required"});
  if (!fields.subject) missing.push_back({"subject", "subject is required"});
  if (!fields.content) missing.push_back({"content", "content is required"});
  if (!missing.empty()) throw http::ApiError::validation(missing);
  const TemplateFields f = checked(fields);
  return saving(ctx, [&] {
    db::NotificationRepo repo(ctx.db);
    db::Template t;
    t.site_id = actor.site_id;
    t.priority = db::kPriorityNormal;
    apply(f, t);
    refuse_duplicate(ctx, t);
    if (!f.priority && !t.locale.empty()) {
      // A new language of an existing template: as bulk as the default one.
      if (auto base = repo.find(actor.site_id, t.event); base && base->event == t.event) t.priority = base->priority;
    }
    t.id = repo.insert(t);
    const int version = record_version(ctx, actor, t, "create");
    audit(ctx, actor, "templates.create", target_of(t.id), detail_of(t, version));
    if (f.priority) spread_priority(ctx, actor, t);
    return TemplateState{t, version};
  });
}

TemplateState edit_template(core::Context& ctx, const Actor& actor, long long id, const TemplateFields& fields,
                            std::optional<int> based_on) {
  require_role(actor, Role::kAdmin);
  const TemplateFields f = checked(fields);
  return saving(ctx, [&] {
    const db::Template before = locked(ctx, actor, id);
    if (based_on && *based_on != db::TemplateVersionRepo(ctx.db).latest(actor.site_id, id)) {
      throw http::ApiError::failed(409, "Template changed by someone else");
    }
    db::Template after = before;
    apply(f, after);
    if (after.event != before.event || after.locale != before.locale) refuse_duplicate(ctx, after);
    const int version = save(ctx, actor, before, after, "update");
    if (f.priority) spread_priority(ctx, actor, after);
    return TemplateState{after, version};
  });
}

TemplateState rollback_template(core::Context& ctx, const Actor& actor, long long id, int version) {
  require_role(actor, Role::kAdmin);
  return saving(ctx, [&] {
    const db::Template before = locked(ctx, actor, id);
    auto old = db::TemplateVersionRepo(ctx.db).find(actor.site_id, id, version);
    if (!old) throw http::ApiError::failed(404, "Version not found");
    db::Template after = *old;
    if (after.event != before.event || after.locale != before.locale) refuse_duplicate(ctx, after);
    const int saved = save(ctx, actor, before, after, "rollback");
    return TemplateState{after, saved};
  });
}

void delete_template(core::Context& ctx, const Actor& actor, long long id) {
  require_role(actor, Role::kAdmin);
  webhooks::atomically(ctx.db, [&] {
    const db::Template t = locked(ctx, actor, id);
    db::TemplateVersionRepo versions(ctx.db);
    const int last = versions.latest(actor.site_id, id);
    db::NotificationRepo(ctx.db).remove(actor.site_id, id);
    versions.remove_all(actor.site_id, id);
    audit(ctx, actor, "templates.delete", target_of(id), detail_of(t, last));
    return true;
  });
}

Page<db::TemplateVersion> template_versions(core::Context& ctx, const Actor& actor, long long id,
                                            const std::string& cursor, int limit) {
  template_row(ctx, actor, id);
  const std::string kind = "template-versions " + std::to_string(id);
  const std::string position = read_cursor(ctx, kind, actor.site_id, cursor);
  auto rows =
      db::TemplateVersionRepo(ctx.db).page(actor.site_id, id, position.empty() ? 0 : std::stoi(position), limit + 1);
  return paged(ctx, kind, actor.site_id, std::move(rows), limit,
               [](const db::TemplateVersion& last) { return std::to_string(last.version); });
}

db::TemplateVersion template_version(core::Context& ctx, const Actor& actor, long long id, int version) {
  template_row(ctx, actor, id);
  auto v = db::TemplateVersionRepo(ctx.db).find(actor.site_id, id, version);
  if (!v) throw http::ApiError::failed(404, "Version not found");
  return *v;
}

Preview preview_template(core::Context& ctx, const Actor& actor, long long id, const messaging::MergeValues& data,
                         const std::optional<std::string>& draft_subject,
                         const std::optional<std::string>& draft_content) {
  TemplateFields draft;
  draft.subject = draft_subject;
  draft.content = draft_content;
  checked(draft);
  db::Template t = template_row(ctx, actor, id);
  if (draft_subject) t.subject = *draft_subject;
  if (draft_content) t.content = *draft_content;
  // The sender's own path: compose() makes the outbox row, svc-sender
  // derives the text part from its HTML.
  const db::OutboxEntry e = messaging::compose(site_of(ctx, actor), t, data, {}, "");
  if (auto active = active_content(e.mail.body)) {
    throw http::ApiError::validation("data", "The merged content " + *active + "; a preview never shows it");
  }
  Preview p;
  p.subject = e.mail.subject;
  p.html = e.mail.body;
  p.text = messaging::html_to_text(e.mail.body);
  p.placeholders = messaging::placeholders(t.subject);
  for (auto& name : messaging::placeholders(t.content)) {
    if (std::find(p.placeholders.begin(), p.placeholders.end(), name) == p.placeholders.end()) {
      p.placeholders.push_back(std::move(name));
    }
  }
  return p;
}

long long test_send(core::Context& ctx, const Actor& actor, long long id, const messaging::MergeValues& data,
                    const std::string& operator_to) {
  require_role(actor, Role::kAdmin);
  const std::string to = actor.is_operator() ? operator_to : actor.email;
  if (!http::is_valid_email(to)) throw http::ApiError::validation("to", "to must be an e-mail address");
  const db::Template t = template_row(ctx, actor, id);
  const db::Site site = site_of(ctx, actor);
  if (site.disable_email) throw http::ApiError::failed(409, "E-mail is disabled for this site");
  messaging::Recipients r;
  r.to = {to};
  db::OutboxEntry e = messaging::compose(site, t, data, r, actor.request_id);
  e.priority = std::max(e.priority, db::kPriorityNormal);
  return webhooks::atomically(ctx.db, [&] {
    messaging::enqueue(ctx, e);
    const long long outbox_id = ctx.db.last_insert_id();
    audit(ctx, actor, "templates.test_send", target_of(id), "to " + to + ", outbox " + std::to_string(outbox_id));
    return outbox_id;
  });
}

}  // namespace svc::manage
