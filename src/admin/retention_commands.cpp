#include "admin/retention_commands.hpp"

#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include "admin/command_env.hpp"
#include "db/retention_repo.hpp"

namespace svc::admin {
namespace {

struct PurgeOptions {
  long long older_than = 0;  // seconds
  int batch = 1000;
  int pause_ms = 20;
  bool dry_run = false;
};

PurgeOptions purge_options(const Args& args) {
  PurgeOptions o;
  o.older_than = parse_duration(args.required("older-than"));
  const long long batch = args.integer("batch", o.batch);
  if (batch < 1 || batch > 100000) throw UsageError("--batch expects 1 to 100000");
  const long long pause = args.integer("pause-ms", o.pause_ms);
  if (pause < 0 || pause > 60000) throw UsageError("--pause-ms expects 0 to 60000");
  o.batch = static_cast<int>(batch);
  o.pause_ms = static_cast<int>(pause);
  o.dry_run = args.flag("dry-run");
  return o;
}

// Runs `batch` until it deletes fewer rows than asked for, printing a progress
// line after each batch. The pause between batches leaves the tables to the
// service and lets replicas catch up. Returns the rows deleted.
long long purge_loop(const std::string& label, const PurgeOptions& o, const std::function<int(int)>& batch) {
  long long total = 0;
  for (;;) {
    const int n = batch(o.batch);
    total += n;
    std::printf("%s: %d deleted (total %lld)\n", label.c_str(), n, total);
    std::fflush(stdout);
    if (n < o.batch) return total;
    if (o.pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.pause_ms));
  }
}

// `label` purge of a table whose rows go by age alone.
int purge_aged(const Args& args, const std::string& config_path, const std::string& label, db::AgedTable table) {
  args.allow_only({"older-than", "batch", "pause-ms", "dry-run"});
  const PurgeOptions o = purge_options(args);
  CommandEnv env(config_path);
  db::RetentionRepo repo(env.db);
  if (o.dry_run) {
    std::printf("%s: %lld would be deleted\n", label.c_str(), repo.count_aged(table, o.older_than));
    return 0;
  }
  const long long total =
      purge_loop(label, o, [&](int limit) { return repo.purge_aged_batch(table, o.older_than, limit); });
  std::printf("%s: done, %lld rows older than %s deleted\n", label.c_str(), total, args.required("older-than").c_str());
  return 0;
}

}  // namespace

int cmd_outbox_purge(const Args& args, const std::string& config_path) {
  args.allow_only({"older-than", "status", "batch", "pause-ms", "dry-run"});
  const PurgeOptions o = purge_options(args);
  std::vector<std::string> statuses = {"Sent", "Failed"};
  if (auto s = args.get("status")) {
    if (*s != "Pending" && *s != "Sent" && *s != "Failed") {
      throw UsageError("--status expects Pending, Sent or Failed, got '" + *s + "'");
    }
    statuses = {*s};
  }
  CommandEnv env(config_path);
  db::RetentionRepo repo(env.db);
  for (const auto& status : statuses) {
    if (o.dry_run) {
      std::printf("outbox purge: %s: %lld would be deleted\n", status.c_str(), repo.count_outbox(status, o.older_than));
      continue;
    }
    const long long total = purge_loop("outbox purge: " + status, o,
                                       [&](int limit) { return repo.purge_outbox_batch(status, o.older_than, limit); });
    std::printf("outbox purge: %s done, %lld rows older than %s deleted\n", status.c_str(), total,
                args.required("older-than").c_str());
  }
  return 0;
}

int cmd_audit_purge(const Args& args, const std::string& config_path) {
  // The security audit and the site administrators' audit (sql/036) keep
  // the same age.
  purge_aged(args, config_path, "audit purge", db::AgedTable::kAudit);
  return purge_aged(args, config_path, "audit purge: site admin", db::AgedTable::kAdminAudit);
}

int cmd_sessions_purge(const Args& args, const std::string& config_path) {
  return purge_aged(args, config_path, "sessions purge", db::AgedTable::kSessions);
}

int cmd_oauth_purge(const Args& args, const std::string& config_path) {
  const std::pair<const char*, db::AgedTable> tables[] = {{"oauth purge: requests", db::AgedTable::kOAuthRequests},
                                                          {"oauth purge: codes", db::AgedTable::kOAuthCodes},
                                                          {"oauth purge: sso", db::AgedTable::kOAuthSso},
                                                          {"oauth purge: grants", db::AgedTable::kOAuthGrants}};
  for (const auto& [label, table] : tables) purge_aged(args, config_path, label, table);
  return 0;
}

int cmd_bounces_purge(const Args& args, const std::string& config_path) {
  return purge_aged(args, config_path, "bounces purge", db::AgedTable::kMailBounces);
}

}  // namespace svc::admin
