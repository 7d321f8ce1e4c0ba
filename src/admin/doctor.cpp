#include "admin/doctor.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <exception>
#include <optional>
#include <vector>

#include "admin/doctor_checks.hpp"
#include "admin/doctor_probes.hpp"
#include "admin/sql_dir.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "config/config.hpp"
#include "core/text.hpp"
#include "db/database.hpp"
#include "db/doctor_repo.hpp"
#include "db/migrations.hpp"
#include "db/outbox_repo.hpp"
#include "db/signing_key_repo.hpp"
#include "db/suppression_repo.hpp"
#include "db/webhook_repo.hpp"

// Every check catches its own exceptions and turns them into a failed row:
// the point of the command is to report all that is wrong in one run.

namespace svc::admin {
namespace {

struct Options {
  std::string socket;              // "" = [server] socket
  std::string nginx_snippet;       // "" = [doctor] nginx_snippet
  std::string nginx_front_secret;  // "" = [doctor] nginx_front_secret
  std::string sql_dir;
  long long max_pending_age = 3600;
  long long sender_max_age = 600;
  int timeout = 5;
};

Options read_options(const Args& args) {
  args.allow_only(
      {"socket", "nginx-snippet", "nginx-front-secret", "sql-dir", "max-pending-age", "sender-max-age", "timeout"});
  Options o;
  o.socket = args.get("socket").value_or("");
  o.nginx_snippet = args.get("nginx-snippet").value_or("");
  o.nginx_front_secret = args.get("nginx-front-secret").value_or("");
  o.sql_dir = args.get("sql-dir").value_or(default_sql_dir());
  if (auto v = args.get("max-pending-age")) o.max_pending_age = parse_duration(*v);
  if (auto v = args.get("sender-max-age")) o.sender_max_age = parse_duration(*v);
  const long long timeout = args.integer("timeout", o.timeout);
  if (timeout < 1 || timeout > 120) throw UsageError("--timeout expects 1 to 120 seconds");
  o.timeout = static_cast<int>(timeout);
  return o;
}

std::string db_label(const config::DbSettings& s) {
  const std::string where = s.socket.empty() ? s.host + ":" + std::to_string(s.port) : s.socket;
  return s.user + "@" + where + "/" + s.name;
}

Check check_database(db::Database& db, const std::string& name) {
  try {
    const auto version = db::DoctorRepo(db).server_version();
    return ok(name, db_label(db.settings()) + " (server " + version + ")");
  } catch (const std::exception& e) {
    return fail(name, db_label(db.settings()) + ": " + e.what(),
                "check [" + name + "] host/socket, user, password and the grants in docs/deploy.md step 4");
  }
}

Check check_merge_account(const config::Config& c) {
  if (!c.merge.configured()) return ok("database.merge", "not configured: SQL merge fields are off");
  db::Database merge(c.merge);
  Check row = check_database(merge, "database.merge");
  if (row.status != Check::Status::Ok) return row;
  try {
    if (db::DoctorRepo(merge).can_read_sites()) {
      return fail("database.merge", db_label(c.merge) + " may read svc_sites (VAPID private keys, key hashes)",
                  "grant the merge account SELECT on the application tables only (docs/deploy.md)");
    }
  } catch (const std::exception& e) {
    return fail("database.merge", e.what(), "check the merge account's grants (docs/deploy.md)");
  }
  return row;
}

Check check_migrations(db::Database& db, const std::string& sql_dir) {
  const std::string fix = "svc-admin migrate (docs/deploy.md step 4), then restart svc-fcgi";
  try {
    const auto files = db::load_migrations(sql_dir);
    const auto applied = db::DoctorRepo(db).applied_migrations();
    std::string missing;
    for (const auto& m : files) {
      if (!applied.count(m.version)) missing += (missing.empty() ? "" : ", ") + m.name;
    }
    if (!missing.empty()) return fail("migrations", "not applied: " + missing, fix);
    for (const auto& m : files) {
      if (!db::applied_as(m, applied.at(m.version))) {
        return fail("migrations", m.name + " changed after it was applied",
                    "restore the shipped " + m.name + " (a changed migration is never re-run)");
      }
    }
    const int newest = files.empty() ? 0 : files.back().version;
    if (!applied.empty() && applied.rbegin()->first > newest) {
      return fail("migrations",
                  "the database has migration " + std::to_string(applied.rbegin()->first) + ", " + sql_dir +
                      " ends at " + std::to_string(newest),
                  "install the svc version that matches the database");
    }
    return ok("migrations", std::to_string(files.size()) + " applied, current (" + sql_dir + ")");
  } catch (const std::exception& e) {
    return fail("migrations", e.what(), "check --sql-dir and the database account");
  }
}

// The access-token key set as a worker builds it: a key signs and
// [keys] signing_kek opens it.
Check check_signing_keys(const config::Config& c, db::Database& db) {
  if (c.tokens.legacy_hs256()) return ok("signing keys", "not used: [tokens] access_alg = HS256 signs with [keys] jwt");
  try {
    const long long now = static_cast<long long>(std::time(nullptr));
    const auto set = auth::build_key_set(db::SigningKeyRepo(db).published(now), now, c.keys.signing_kek, nullptr);
    if (!set.signer) {
      return fail("signing keys", "no active signing key: logins fail", "svc-admin signing-keys rotate --now");
    }
    return ok("signing keys", std::to_string(set.published.size()) + " published, " + set.signer->kid() + " signs");
  } catch (const std::exception& e) {
    return fail(
        "signing keys", e.what(),
        "[keys] signing_kek must be the one the keys were sealed with; else svc-admin signing-keys rotate --now");
  }
}

// One row about sites: ok when the DoctorRepo query `list` names none ("id
// name" each), else a failure that lists them.
Check site_row(db::Database& db, std::vector<std::string> (db::DoctorRepo::*list)(), const char* name,
               const std::string& fine, const std::string& problem, const std::string& fix) {
  try {
    db::DoctorRepo repo(db);
    const std::vector<std::string> sites = (repo.*list)();
    if (sites.empty()) return ok(name, fine);
    return fail(name, problem + ": " + core::join(sites, ", "), fix);
  } catch (const std::exception& e) {
    return fail(name, e.what(), "check the database account");
  }
}

Check check_site_keys(db::Database& db) {
  return site_row(db, &db::DoctorRepo::keyless_sites, "site keys", "every active site has an API key",
                  "active sites without an API key",
                  "svc-admin site set --site ID --api-key KEY (then give the key to the site's server)");
}

// Mail of a site without email_from leaves with an empty From: header,
// which relays reject (issue 36).
Check check_site_senders(db::Database& db) {
  return site_row(db, &db::DoctorRepo::senderless_sites, "site senders", "every active site that mails has a sender",
                  "active sites that send mail without a sender (empty From:)",
                  "svc-admin site set --site ID --email-from 'Name <no-reply@DOMAIN>'");
}

Check check_templates(const config::Config& c, db::Database& db) {
  Check row = check_config_templates(c.sms);
  if (row.status != Check::Status::Ok) return row;
  try {
    const auto empty = db::DoctorRepo(db).empty_templates();
    if (empty.empty()) return ok("templates", row.detail + "; enabled e-mail templates have subject and content");
    std::string list;
    for (const auto& t : empty) list += (list.empty() ? "" : ", ") + t;
    return fail("templates", "enabled templates with an empty subject or content: " + list,
                "svc-admin template set ... or svc-admin template disable --site N --event E");
  } catch (const std::exception& e) {
    return fail("templates", e.what(), "check the database account");
  }
}

Check check_smtp(const config::SmtpSettings& smtp, int timeout) {
  const auto r = probe_smtp(smtp, timeout);
  if (r.ok) return ok("smtp", r.detail + (smtp.security == "starttls" ? " EHLO and STARTTLS" : " EHLO"));
  return fail("smtp", r.detail, "check [smtp] host, port, security and the relay (svc-sender cannot deliver)");
}

Check check_sms(const config::SmsSettings& sms, int timeout) {
  if (sms.driver != "http") return ok("sms", "driver " + sms.driver + ": no gateway (codes are only logged)");
  const auto r = probe_url(sms.url, timeout);
  if (r.ok) return ok("sms", r.detail);
  return fail("sms", r.detail, "check [sms] url and the gateway (SMS codes cannot be sent)");
}

Check check_socket(const std::string& name, const std::string& address, int timeout) {
  const auto r = probe_socket(address, timeout);
  if (r.ok) return ok(name, r.detail);
  return fail(name, r.detail,
              "systemctl status svc-fcgi.socket svc-fcgi.service; --socket ADDR when it listens elsewhere");
}

// Fails when a due row waits unclaimed longer than max_age, or when the last
// recorded run (svc_sender_status) is older than that: the timer runs the
// sender every minute whether or not mail is queued. A deployment whose
// sender never ran yet only fails on the first rule.
Check check_sender(const db::SenderActivity& a, long long max_age) {
  const std::string ran =
      a.last_run_age < 0 ? "no run recorded" : "last run ended " + std::to_string(a.last_run_age) + "s ago";
  const std::string sent =
      ran + "; " +
      (a.last_sent_age < 0 ? "nothing sent yet" : "last Sent " + std::to_string(a.last_sent_age) + "s ago");
  if (a.last_run_age > max_age) {
    return fail("sender", "the sender has not run for " + std::to_string(a.last_run_age) + "s; " + sent,
                "systemctl status svc-sender.timer svc-sender.service; journalctl -u svc-sender");
  }
  if (a.oldest_due_wait > max_age) {
    return fail("sender", "a due Pending row has waited " + std::to_string(a.oldest_due_wait) + "s unclaimed; " + sent,
                "systemctl status svc-sender.timer svc-sender.service; journalctl -u svc-sender");
  }
  return ok("sender", sent + "; no due row waits longer than " + std::to_string(max_age) + "s");
}

Check check_pending(const db::OutboxStats& s, long long max_age) {
  if (s.oldest_pending_age > max_age) {
    return fail("pending",
                "oldest Pending row is " + std::to_string(s.oldest_pending_age) + "s old (" +
                    std::to_string(s.pending) + " Pending)",
                "svc-admin outbox list --status Pending; the last_error column says why");
  }
  return ok("pending", std::to_string(s.pending) + " Pending, oldest " +
                           (s.oldest_pending_age < 0 ? std::string("-") : std::to_string(s.oldest_pending_age) + "s"));
}

// Fails while the bounce-rate guard holds some site's bulk mail back.
Check check_bounce_guard(db::Database& db, const config::SmtpSettings& smtp) {
  if (smtp.max_bounce_rate <= 0) return ok("bounces", "guard off ([smtp] max_bounce_rate = 0)");
  const auto over = db::SuppressionRepo(db).over_bounce_rate(smtp.max_bounce_rate, smtp.bounce_rate_min_mails);
  const std::string rule = "hard bounces in the last hour over " + std::to_string(smtp.max_bounce_rate) +
                           "% of at least " + std::to_string(smtp.bounce_rate_min_mails) + " mails";
  if (over.empty()) return ok("bounces", "no site has " + rule);
  std::string sites;
  for (const auto& b : over) {
    sites += (sites.empty() ? "" : ", ") + std::string("site ") + std::to_string(b.site_id) + " (" +
             std::to_string(b.hard) + " of " + std::to_string(b.mails) + ")";
  }
  return fail("bounces", "bulk mail held back for " + sites + ": " + rule,
              "svc-admin suppression list --site N --reason bounce; clean the site's address list");
}

void outbox_rows(std::vector<Check>& rows, db::Database& db, const config::Config& c, const Options& o) {
  try {
    rows.push_back(check_sender(db::DoctorRepo(db).sender_activity(), o.sender_max_age));
    rows.push_back(check_pending(db::OutboxRepo(db).stats(), o.max_pending_age));
    rows.push_back(check_bounce_guard(db, c.smtp));
  } catch (const std::exception& e) {
    rows.push_back(fail("sender", e.what(), "check the database account"));
    rows.push_back(skip("pending", "outbox unreadable"));
  }
  try {
    const int after = c.webhooks.failing_after;
    rows.push_back(check_webhooks(db::WebhookRepo(db).failing_endpoints(after), after));
  } catch (const std::exception& e) {
    rows.push_back(fail("webhooks", e.what(), "check the database account"));
  }
}

void database_rows(std::vector<Check>& rows, const config::Config& c, const Options& o) {
  db::Database db(c.database);
  rows.push_back(check_database(db, "database"));
  rows.push_back(check_merge_account(c));
  if (rows[rows.size() - 2].status != Check::Status::Ok) {
    for (const char* name :
         {"migrations", "signing keys", "site keys", "site senders", "templates", "sender", "pending", "webhooks"}) {
      rows.push_back(skip(name, "database unreachable"));
    }
    return;
  }
  rows.push_back(check_migrations(db, o.sql_dir));
  rows.push_back(check_signing_keys(c, db));
  rows.push_back(check_site_keys(db));
  rows.push_back(check_site_senders(db));
  rows.push_back(check_templates(c, db));
  outbox_rows(rows, db, c, o);
}

}  // namespace

int cmd_doctor(const Args& args, const std::string& config_path) {
  const Options o = read_options(args);
  std::vector<Check> rows;
  std::optional<config::Config> c;
  try {
    c = config::load_config(config_path);
    rows.push_back(ok("config", config_path + " valid"));
  } catch (const std::exception& e) {
    rows.push_back(fail("config", e.what(), "fix " + config_path + "; svc-fcgi --config FILE --check re-tests it"));
  }
  if (c) {
    struct stat st {};
    rows.push_back(check_keys(c->keys, ::stat(config_path.c_str(), &st) == 0 ? st.st_mode : 0));
    rows.push_back(check_protective_settings(*c));
    rows.push_back(check_access_tokens(c->tokens));
    rows.push_back(check_breached_list(c->auth.breached_list, static_cast<long long>(::time(nullptr))));
    database_rows(rows, *c, o);
    rows.push_back(check_smtp(c->smtp, o.timeout));
    rows.push_back(check_sms(c->sms, o.timeout));
  }
  const config::DoctorSettings paths = c ? c->doctor : config::DoctorSettings{};
  rows.push_back(check_nginx_snippet(o.nginx_snippet.empty() ? paths.nginx_snippet : o.nginx_snippet));
  if (c) {
    const std::string include = o.nginx_front_secret.empty() ? paths.nginx_front_secret : o.nginx_front_secret;
    rows.push_back(check_front_secret(c->server.front_secret_file, include, ::geteuid()));
    rows.push_back(check_socket("fastcgi", o.socket.empty() ? c->server.socket : o.socket, o.timeout));
    if (!c->server.hashing_socket.empty()) {
      rows.push_back(check_socket("fastcgi hashing", c->server.hashing_socket, o.timeout));
    }
    if (!c->server.outbound_socket.empty()) {
      rows.push_back(check_socket("fastcgi outbound", c->server.outbound_socket, o.timeout));
    }
  }
  std::fputs(format_table(rows).c_str(), stdout);
  return exit_status(rows);
}

}  // namespace svc::admin
