#include "admin/outbox_commands.hpp"

#include <cstdio>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "core/text.hpp"
#include "db/outbox_repo.hpp"
#include "db/suppression_repo.hpp"

namespace svc::admin {
namespace {

std::string age(long long seconds) {
  if (seconds < 0) return "-";
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 7200) return std::to_string(seconds / 60) + "m";
  if (seconds < 172800) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

// One field of a tab-separated line: controls (a stored line break or tab
// would break the table) shown as '?', empty as '-'.
std::string field(const std::string& s) { return s.empty() ? "-" : core::mask_controls(s); }

}  // namespace

int cmd_outbox_stats(const Args& args, const std::string& config_path) {
  args.allow_only({});
  CommandEnv env(config_path);
  db::OutboxRepo repo(env.db);
  repo.set_bounce_guard(env.config.smtp.max_bounce_rate, env.config.smtp.bounce_rate_min_mails);
  const auto s = repo.stats();
  std::printf("Pending: %lld (due now: %lld, claimed: %lld, oldest: %s)\n", s.pending, s.pending_due, s.pending_claimed,
              age(s.oldest_pending_age).c_str());
  std::printf("Sent:    %lld\n", s.sent);
  std::printf("Failed:  %lld\n", s.failed);
  std::printf("Priority (Pending): high %lld, normal %lld, bulk %lld\n", s.pending_high,
              s.pending - s.pending_high - s.pending_bulk, s.pending_bulk);
  std::printf("Deferred by site quota: %lld this hour, %lld in 24h\n", s.quota_deferred_hour, s.quota_deferred_day);
  std::string by_reason;
  const auto counts = db::SuppressionRepo(env.db).counts_by_reason();
  for (const char* reason : db::kSuppressionReasons) {
    long long n = 0;
    for (const auto& [r, count] : counts) {
      if (r == reason) n = count;
    }
    by_reason += (by_reason.empty() ? "" : ", ") + std::string(reason) + " " + std::to_string(n);
  }
  std::printf("Suppressed addresses: %s\n", by_reason.c_str());
  std::printf("Bulk mail held by the bounce-rate guard: %lld site(s)\n", s.guard_deferred_sites);
  return 0;
}

int cmd_outbox_retry(const Args& args, const std::string& config_path) {
  args.allow_only({});
  const auto& words = args.words();
  if (words.size() != 3) throw UsageError("outbox retry takes exactly one row id: svc-admin outbox retry ID");
  const std::string& text = words[2];
  const auto parsed = core::parse_id(text);
  if (!parsed) throw UsageError("outbox retry: '" + text + "' is not a row id");
  const long long id = *parsed;
  CommandEnv env(config_path);
  db::OutboxRepo repo(env.db);
  if (!repo.requeue_failed(id)) {
    const auto row = repo.find(id);
    if (!row) throw std::runtime_error("no outbox row " + text);
    throw std::runtime_error("outbox row " + text + " is " + row->status +
                             ", not Failed: only Failed rows can be retried");
  }
  std::printf("outbox row %lld re-queued: Pending, attempts 0, due now\n", id);
  return 0;
}

int cmd_outbox_list(const Args& args, const std::string& config_path) {
  args.allow_only({"status", "site", "limit"});
  const std::string status = args.get("status").value_or("Failed");
  if (status != "Pending" && status != "Sent" && status != "Failed") {
    throw UsageError("--status expects Pending, Sent or Failed, got '" + status + "'");
  }
  const long long limit = args.integer("limit", 20);
  if (limit < 1 || limit > 10000) throw UsageError("--limit expects 1 to 10000");
  const long long site_id = args.integer("site", 0);
  CommandEnv env(config_path);
  return print_listing(
      db::OutboxRepo(env.db).list(status, site_id, static_cast<int>(limit)), "no " + status + " rows",
      "id\tsite\tevent\tstatus\tattempts\tcreated_at\tnext_attempt_at\tsent_at\tclaimed_by\trecipient\tlast_error",
      [](const auto& r) {
        std::printf("%lld\t%lld\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.id, r.site_id, field(r.event).c_str(),
                    r.status.c_str(), r.attempts, r.created_at.c_str(),
                    r.status == "Pending" ? r.next_attempt_at.c_str() : "-", field(r.sent_at).c_str(),
                    field(r.claimed_until.empty() ? "" : r.claimed_by).c_str(), field(r.recipient).c_str(),
                    field(r.last_error).c_str());
      });
}

}  // namespace svc::admin
