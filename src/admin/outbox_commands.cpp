#include "admin/outbox_commands.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "admin/listing.hpp"
#include "admin/manage_env.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "manage/mail.hpp"

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

// A DATETIME column's text as a person reads it: "2026-11-29 10:00:00Z", "-" for none.
std::string stamp(const std::string& datetime) { return datetime.empty() ? "-" : datetime + "Z"; }

// Up to `limit` rows of a site's listing, page after page (a page holds at
// most manage::kMaxPage). fetch(cursor, page_size) returns one manage::Page.
template <class Fetch>
auto all_pages(long long limit, Fetch fetch) {
  decltype(fetch(std::string(), 1).rows) rows;
  std::string cursor;
  do {
    const auto wanted = std::min<long long>(limit - static_cast<long long>(rows.size()), manage::kMaxPage);
    auto page = fetch(cursor, static_cast<int>(wanted));
    rows.insert(rows.end(), page.rows.begin(), page.rows.end());
    cursor = page.next_cursor;
  } while (!cursor.empty() && static_cast<long long>(rows.size()) < limit);
  return rows;
}

// The outbox row a command names (words[2]), with the operator on its site:
// --site N, else the row's own site. "no outbox row N" when there is none there.
manage::MailEntry named_entry(ManageEnv& m, const Args& args, const char* command) {
  const auto& words = args.words();
  if (words.size() != 3) {
    throw UsageError(std::string("outbox ") + command + " takes exactly one row id: svc-admin outbox " + command +
                     " ID");
  }
  const auto id = core::parse_id(words[2]);
  if (!id) throw UsageError(std::string("outbox ") + command + ": '" + words[2] + "' is not a row id");
  try {
    m.act_on(args.get("site") ? args.required_integer("site") : manage::mail_site(m.ctx, *id));
    return manage::show_mail(m.ctx, m.actor, *id);
  } catch (const http::ApiError& e) {
    if (e.status() != 404) throw;
    throw std::runtime_error("no outbox row " + words[2] +
                             (args.get("site") ? " on site " + std::to_string(m.actor.site_id) : ""));
  }
}

void print_listing_row(const db::OutboxListing& r) {
  std::printf("%lld\t%lld\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.id, r.site_id, field(r.event).c_str(),
              r.status.c_str(), r.attempts, r.created_at.c_str(),
              r.status == "Pending" ? r.next_attempt_at.c_str() : "-", field(r.sent_at).c_str(),
              field(r.claimed_until.empty() ? "" : r.claimed_by).c_str(), field(r.recipient).c_str(),
              field(r.last_error).c_str());
}

std::string joined(const std::vector<std::string>& list) { return list.empty() ? "-" : core::join(list, ", "); }

}  // namespace

int cmd_outbox_stats(const Args& args, const std::string& config_path) {
  args.allow_only({});
  ManageEnv m(config_path);
  const manage::OutboxOverview o = manage::outbox_overview(m.ctx);
  const db::OutboxStats& s = o.stats;
  std::printf("Pending: %lld (due now: %lld, claimed: %lld, oldest: %s)\n", s.pending, s.pending_due, s.pending_claimed,
              age(s.oldest_pending_age).c_str());
  std::printf("Sent:    %lld\n", s.sent);
  std::printf("Failed:  %lld\n", s.failed);
  std::printf("Priority (Pending): high %lld, normal %lld, bulk %lld\n", s.pending_high,
              s.pending - s.pending_high - s.pending_bulk, s.pending_bulk);
  std::printf("Deferred by site quota: %lld this hour, %lld in 24h\n", s.quota_deferred_hour, s.quota_deferred_day);
  std::string by_reason;
  for (const auto& [reason, n] : o.suppressed) {
    by_reason += (by_reason.empty() ? "" : ", ") + reason + " " + std::to_string(n);
  }
  std::printf("Suppressed addresses: %s\n", by_reason.c_str());
  std::printf("Bulk mail held by the bounce-rate guard: %lld site(s)\n", s.guard_deferred_sites);
  return 0;
}

int cmd_outbox_retry(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  ManageEnv m(config_path);
  const manage::MailEntry entry = named_entry(m, args, "retry");
  const long long id = entry.row.id;
  if (entry.row.status != "Failed") {
    throw std::runtime_error("outbox row " + std::to_string(id) + " is " + entry.row.status +
                             ", not Failed: only Failed rows can be retried");
  }
  manage::resend_mail(m.ctx, m.actor, id);
  std::printf("outbox row %lld re-queued: Pending, attempts 0, due now\n", id);
  return 0;
}

int cmd_outbox_show(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  ManageEnv m(config_path);
  const manage::MailEntry e = named_entry(m, args, "show");
  const db::OutboxListing& r = e.row;
  std::printf("id:            %lld\nsite:          %lld\nevent:         %s\nstatus:        %s, %d failed attempt(s)\n",
              r.id, r.site_id, core::mask_controls(r.event).c_str(), r.status.c_str(), r.attempts);
  std::printf("created:       %s\nnext attempt:  %s\nsent:          %s\nlast error:    %s\n",
              stamp(r.created_at).c_str(), r.status == "Pending" ? stamp(r.next_attempt_at).c_str() : "-",
              stamp(r.sent_at).c_str(), field(r.last_error).c_str());
  for (const auto& b : e.bounces) {
    std::printf("bounce:        %s %s %s, %s\n", stamp(b.created_at).c_str(), b.kind.c_str(),
                core::mask_controls(b.status).c_str(), core::mask_controls(b.address).c_str());
  }
  for (const auto& [address, reason] : e.suppressed) {
    std::printf("suppressed:    %s (%s)\n", core::mask_controls(address).c_str(), reason.c_str());
  }
  const messaging::OutgoingMail& mail = e.mail;
  std::printf("from:          %s%s<%s>\nto:            %s\ncc:            %s\nbcc:           %s\n",
              core::mask_controls(mail.from_name).c_str(), mail.from_name.empty() ? "" : " ",
              core::mask_controls(mail.from).c_str(), core::mask_controls(joined(mail.to)).c_str(),
              core::mask_controls(joined(mail.cc)).c_str(), core::mask_controls(joined(mail.bcc)).c_str());
  std::printf("subject:       %s\nmessage-id:    %s\ndate:          %s\n", core::mask_controls(mail.subject).c_str(),
              mail.message_id.c_str(), readable_time(mail.date_unix).c_str());
  std::printf("\n--- text/plain ---\n%s\n--- text/html ---\n%s\n", e.text.c_str(), mail.html.c_str());
  return 0;
}

int cmd_outbox_list(const Args& args, const std::string& config_path) {
  args.allow_only({"status", "site", "limit", "event", "recipient", "since", "until"});
  const std::string status = args.get("status").value_or("Failed");
  if (status != "Pending" && status != "Sent" && status != "Failed") {
    throw UsageError("--status expects Pending, Sent or Failed, got '" + status + "'");
  }
  const long long limit = args.integer("limit", 20);
  if (limit < 1 || limit > 10000) throw UsageError("--limit expects 1 to 10000");
  ManageEnv m(config_path);
  std::vector<db::OutboxListing> rows;
  if (args.get("site")) {
    m.act_on(args.required_integer("site"));
    manage::MailQuery query;
    query.status = status;
    query.event = args.get("event").value_or("");
    query.recipient = args.get("recipient").value_or("");
    query.since = args.get("since").value_or("");
    query.until = args.get("until").value_or("");
    rows = all_pages(limit, [&](const std::string& cursor, int size) {
      return manage::list_mail(m.ctx, m.actor, query, cursor, size);
    });
  } else {
    if (args.get("event") || args.get("recipient") || args.get("since") || args.get("until")) {
      throw UsageError("--event, --recipient, --since and --until need --site N");
    }
    rows = manage::all_sites_mail(m.ctx, status, static_cast<int>(limit));
  }
  return print_listing(
      rows, "no " + status + " rows",
      "id\tsite\tevent\tstatus\tattempts\tcreated_at\tnext_attempt_at\tsent_at\tclaimed_by\trecipient\tlast_error",
      print_listing_row);
}

int cmd_suppression_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "reason", "limit"});
  const std::string reason = args.get("reason").value_or("");
  const long long limit = args.integer("limit", 100);
  if (limit < 1 || limit > 100000) throw UsageError("--limit must be from 1 to 100000");
  ManageEnv m(config_path);
  std::vector<db::Suppression> rows;
  if (args.get("site")) {
    m.act_on(args.required_integer("site"));
    rows = all_pages(limit, [&](const std::string& cursor, int size) {
      return manage::list_suppressions(m.ctx, m.actor, reason, cursor, size);
    });
  } else {
    rows = manage::all_sites_suppressions(m.ctx, reason, static_cast<int>(limit));
  }
  std::printf("site\taddress\treason\tsince\tlog_id\tdetail\n");
  for (const auto& s : rows) {
    std::printf("%lld\t%s\t%s\t%s\t%s\t%s\n", s.site_id, core::mask_controls(s.address).c_str(), s.reason.c_str(),
                s.created_at.c_str(), s.log_id > 0 ? std::to_string(s.log_id).c_str() : "-",
                s.detail.empty() ? "-" : core::mask_controls(s.detail).c_str());
  }
  return 0;
}

int cmd_suppression_add(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "email", "reason", "detail"});
  ManageEnv m(config_path, args);
  const std::string email = core::ascii_lower(args.required("email"));
  const std::string reason = args.get("reason").value_or("manual");
  const bool fresh =
      manage::add_suppression(m.ctx, m.actor, email, reason, args.get("detail").value_or("added by svc-admin"));
  std::printf("%s suppressed for site %lld (%s)%s\n", email.c_str(), m.actor.site_id, reason.c_str(),
              fresh ? "" : ", already was");
  return 0;
}

int cmd_suppression_remove(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "email", "reason"});
  ManageEnv m(config_path, args);
  const std::string email = core::ascii_lower(args.required("email"));
  const int removed = manage::remove_suppression(m.ctx, m.actor, email, args.get("reason").value_or(""));
  std::printf("%d suppression(s) of %s removed for site %lld\n", removed, email.c_str(), m.actor.site_id);
  return 0;
}

}  // namespace svc::admin
