#include "admin/template_commands.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "config/config.hpp"
#include "db/database.hpp"
#include "db/merge_repo.hpp"
#include "db/notification_repo.hpp"
#include "db/outbox_repo.hpp"
#include "db/site_repo.hpp"
#include "messaging/sender.hpp"
#include "core/text.hpp"
#include "http/validate.hpp"
#include "messaging/address.hpp"

namespace svc::admin {
namespace {

constexpr std::size_t kMaxSubjectBytes = 998;  // svc_notifications.subject

std::string read_text_file(const std::string& option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read --" + option + " " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF):
// MariaDB would refuse anything else in a utf8mb4 column under strict mode.
bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    unsigned long cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff))) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

// Event and query names: what a client writes in a request, so plain tokens.
void check_name(const std::string& option, const std::string& value) {
  bool ok = !value.empty() && value.size() <= 190;
  for (char c : value) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == ':');
  }
  if (!ok) throw UsageError("--" + option + " must be 1-190 characters of A-Z a-z 0-9 - _ . :, got '" + value + "'");
}

bool parse_bool(const std::string& option, const std::string& v) {
  if (v == "true" || v == "yes" || v == "1" || v == "on") return true;
  if (v == "false" || v == "no" || v == "0" || v == "off") return false;
  throw UsageError("--" + option + " expects true or false, got '" + v + "'");
}

// One line: trailing line breaks are dropped, any other control is an error.
std::string read_subject(const std::string& path) {
  std::string s = read_text_file("subject-file", path);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.empty()) throw std::runtime_error("--subject-file " + path + " is empty");
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) throw std::runtime_error("--subject-file " + path + " must hold a single line");
  }
  if (s.size() > kMaxSubjectBytes) {
    throw std::runtime_error("--subject-file " + path + " is longer than " + std::to_string(kMaxSubjectBytes) +
                             " bytes");
  }
  if (!valid_utf8(s)) throw std::runtime_error("--subject-file " + path + " is not UTF-8");
  return s;
}

std::string read_content(const std::string& path) {
  std::string s = read_text_file("content-file", path);
  if (s.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw std::runtime_error("--content-file " + path + " is empty");
  }
  if (!valid_utf8(s)) throw std::runtime_error("--content-file " + path + " is not UTF-8");
  return s;
}

// "" or "none" clears; else "Name <addr>" or a bare address.
std::string checked_from(const std::string& v) {
  if (v.empty() || v == "none") return "";
  if (core::strip_controls(v) != v) throw UsageError("--from must not contain control characters");
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

void require_site(db::Database& db, long long site_id) {
  if (!db::SiteRepo(db).find(site_id)) throw std::runtime_error("no site with id " + std::to_string(site_id));
}

db::Template require_template(db::Database& db, long long site_id, const std::string& event) {
  auto t = db::NotificationRepo(db).find(site_id, event);
  if (!t) throw std::runtime_error("no template '" + event + "' for site " + std::to_string(site_id));
  if (t->event != event) {
    throw std::runtime_error("no template '" + event + "' for site " + std::to_string(site_id) + " (there is '" +
                             t->event + "'; event names match exactly)");
  }
  return *t;
}

int set_enabled(const Args& args, const std::string& config_path, bool enabled) {
  args.allow_only({"site", "event"});
  const long long site_id = args.required_integer("site");
  const std::string event = args.required("event");
  auto config = config::load_config(config_path);
  db::Database db(config.database);
  const auto t = require_template(db, site_id, event);
  db::NotificationRepo(db).set_enabled(t.id, enabled);
  std::printf("template '%s' of site %lld %s\n", event.c_str(), site_id, enabled ? "enabled" : "disabled");
  return 0;
}

std::string one_line(const std::string& s) {
  std::string out;
  bool blank = false;
  for (char c : s) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && !out.empty()) blank = true;
    if (space) continue;
    if (blank) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

int cmd_template_set(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "event", "subject-file", "content-file", "from", "bcc", "enabled"});
  const long long site_id = args.required_integer("site");
  const std::string event = args.required("event");
  check_name("event", event);
  const std::string subject = read_subject(args.required("subject-file"));
  const std::string content = read_content(args.required("content-file"));
  auto from = args.get("from");
  auto bcc = args.get("bcc");
  auto enabled = args.get("enabled");
  if (from) *from = checked_from(*from);
  if (bcc) *bcc = checked_bcc(*bcc);
  const bool enable = enabled ? parse_bool("enabled", *enabled) : true;

  auto config = config::load_config(config_path);
  db::Database db(config.database);
  require_site(db, site_id);
  db::NotificationRepo repo(db);
  const auto existing = repo.find(site_id, event);
  // The column's collation ignores case, accents and trailing blanks, so the
  // unique key would make this an update of a template the API would never
  // match to `event` (the API matches exactly).
  if (existing && existing->event != event) {
    throw std::runtime_error("site " + std::to_string(site_id) + " already has template '" + existing->event +
                             "', which the database does not tell apart from '" + event + "'");
  }
  db::Template t = existing.value_or(db::Template{});
  t.site_id = site_id;
  t.event = event;
  t.subject = subject;
  t.content = content;
  if (from) t.from = *from;
  if (bcc) t.bcc = *bcc;
  if (enabled || !existing) t.enabled = enable;  // an update keeps the state unless told
  const long long id = repo.upsert(t);
  std::printf("template '%s' of site %lld %s (id %lld, %s, from %s, bcc %s)\n", event.c_str(), site_id,
              existing ? "updated" : "created", id, t.enabled ? "enabled" : "disabled",
              t.from.empty() ? "(site default)" : t.from.c_str(), t.bcc.empty() ? "(none)" : t.bcc.c_str());
  return 0;
}

int cmd_template_enable(const Args& args, const std::string& config_path) {
  return set_enabled(args, config_path, true);
}

int cmd_template_disable(const Args& args, const std::string& config_path) {
  return set_enabled(args, config_path, false);
}

int cmd_template_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  const long long site_id = args.required_integer("site");
  auto config = config::load_config(config_path);
  db::Database db(config.database);
  require_site(db, site_id);
  const auto templates = db::NotificationRepo(db).list(site_id);
  if (templates.empty()) {
    std::printf("no templates for site %lld\n", site_id);
    return 0;
  }
  std::printf("id\tevent\tenabled\tfrom\tbcc\tsubject\n");
  for (const auto& t : templates) {
    std::printf("%lld\t%s\t%s\t%s\t%s\t%s\n", t.id, t.event.c_str(), t.enabled ? "yes" : "no",
                t.from.empty() ? "-" : t.from.c_str(), t.bcc.empty() ? "-" : t.bcc.c_str(), t.subject.c_str());
  }
  return 0;
}

int cmd_merge_query_set(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "name", "sql-file"});
  const long long site_id = args.required_integer("site");
  const std::string name = args.required("name");
  check_name("name", name);
  const std::string path = args.required("sql-file");
  std::string sql_text = read_text_file("sql-file", path);
  // A quick check for operator mistakes; the real guard is that merge queries
  // run on the read-only [database.merge] account (db/merge_repo).
  while (!sql_text.empty() && std::isspace(static_cast<unsigned char>(sql_text.back()))) sql_text.pop_back();
  if (!sql_text.empty() && sql_text.back() == ';') sql_text.pop_back();
  const auto start = sql_text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) throw std::runtime_error("--sql-file " + path + " is empty");
  sql_text = sql_text.substr(start);
  if (!db::is_select_shaped(sql_text)) {
    throw std::runtime_error("--sql-file " + path + " must hold a single SELECT (or WITH ... SELECT) statement");
  }
  if (sql_text.find(';') != std::string::npos) {
    throw std::runtime_error("--sql-file " + path + " holds more than one statement (';')");
  }
  if (!valid_utf8(sql_text)) throw std::runtime_error("--sql-file " + path + " is not UTF-8");

  auto config = config::load_config(config_path);
  db::Database db(config.database);
  require_site(db, site_id);
  db::MergeRepo repo(db);
  const bool existed = repo.find_named(site_id, name).has_value();
  repo.upsert(site_id, name, sql_text);
  std::printf("merge query '%s' of site %lld %s\n", name.c_str(), site_id, existed ? "updated" : "created");
  return 0;
}

int cmd_merge_query_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  const long long site_id = args.required_integer("site");
  auto config = config::load_config(config_path);
  db::Database db(config.database);
  require_site(db, site_id);
  const auto queries = db::MergeRepo(db).list(site_id);
  if (queries.empty()) {
    std::printf("no merge queries for site %lld\n", site_id);
    return 0;
  }
  std::printf("name\tsql\n");
  for (const auto& [name, text] : queries) std::printf("%s\t%s\n", name.c_str(), one_line(text).c_str());
  return 0;
}

}  // namespace svc::admin
