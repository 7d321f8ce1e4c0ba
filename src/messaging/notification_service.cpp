#include "messaging/notification_service.hpp"

#include <algorithm>
#include <vector>

#include "config/config.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "db/merge_repo.hpp"
#include "db/notification_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "messaging/address.hpp"
#include "messaging/compose.hpp"
#include "messaging/outbox.hpp"
#include "messaging/template_cache.hpp"
#include "metrics/outbound_slots.hpp"

namespace svc::messaging {
namespace {

constexpr std::size_t kMaxRecipientBytes = 2048;  // svc_notification_log.recipient

// The SQL field: the name of one of the site's merge queries, or (only when
// the site has allow_sql_merge) a SELECT to run as is. Either runs on the
// read-only merge account only: on ctx.db a query would run with the
// application's privileges, and run_merge_select's reset after each query
// would throw away that connection's statement cache. Anything else is a
// validation error on SQL.
MergeValues run_sql_field(core::Context& ctx, const db::Site& site, const Notification& n, const MergeValues& data) {
  if (!ctx.merge_db) throw http::ApiError::validation("SQL", "SQL merge is not configured on this server");
  auto named = db::MergeRepo(ctx.db).find_named(site.id, n.sql);
  if (!named && !site.allow_sql_merge) {
    throw http::ApiError::validation("SQL", "SQL must name a merge query of this site");
  }
  std::map<std::string, std::string> params = data;
  params["master_id"] = n.master_id > 0 ? std::to_string(n.master_id) : "";
  params["site_id"] = std::to_string(site.id);
  // A slow merge query waits on the database for up to statement_timeout_ms:
  // at most [outbound] per_site of them per site at once, the rest refused
  // at once with the merge's failure reply.
  metrics::OutboundHold hold(site.id, ctx.config.outbound.per_site);
  if (!hold.granted()) {
    core::LogLine("warn", "outbound_cap_reached")
        .str("call", "merge")
        .str("request_id", n.request_id)
        .num("site_id", site.id)
        .num("per_site", ctx.config.outbound.per_site)
        .emit();
    throw http::ApiError::validation("SQL", "SQL query failed");
  }
  try {
    return db::run_merge_select(*ctx.merge_db, named ? *named : n.sql, params, ctx.config.merge.statement_timeout_ms);
  } catch (const db::MergeQueryError& e) {
    core::LogLine("warn", "merge_query_failed")
        .str("request_id", n.request_id)
        .num("site_id", site.id)
        .str("error", e.what())
        .emit();
    throw http::ApiError::validation("SQL", "SQL query failed");
  }
}

// The e-mail of a site's CC/BCC user. Those ids always point into the
// built-in svc_users table (whatever [auth] tables lists), so the table is
// TableName::builtin_users(), a constant, rather than an allowlist lookup of
// a name no request sent; UserRepo stays the one home of that SELECT.
std::string user_email(core::Context& ctx, long long user_id) {
  if (user_id <= 0) return "";
  auto user = db::UserRepo(ctx.db, db::TableName::builtin_users()).find_by_id(user_id);
  return user ? core::strip_controls(user->email) : "";
}

// Validated, CR/LF-free addresses of a comma/semicolon list; throws a
// validation error on `field` for an invalid one.
std::vector<std::string> addresses(const std::string& list, const char* field) {
  std::vector<std::string> out;
  for (auto& a : split_addresses(core::strip_controls(list))) {
    if (!http::is_valid_email(a)) {
      throw http::ApiError::validation(field, std::string(field) + " holds an invalid e-mail address");
    }
    out.push_back(a);
  }
  return out;
}

// The To list as sent: `email`, else the merge value setEmailField names;
// `field` is where it came from, for error messages.
struct ToList {
  std::string text;
  const char* field;
};

ToList to_list(const Notification& n, const MergeValues& values) {
  if (!n.email.empty() || !n.email_field) return {n.email, "email"};
  auto it = values.find(*n.email_field);
  return {it == values.end() ? "" : it->second, "setEmailField"};
}

// The copies every mail of the site gets: its CC user (not for a BCC-only
// mail, whose addresses must stay hidden: spec, "NONE sends only to BCC
// addresses"), its BCC user, then the template's bcc.
void add_copies(core::Context& ctx, const db::Site& site, const db::Template& tmpl, bool bcc_only, Recipients& r) {
  if (!bcc_only) r.cc = addresses(user_email(ctx, site.email_cc), "email_cc");
  r.bcc = addresses(user_email(ctx, site.email_bcc), "email_bcc");
  for (auto& a : addresses(tmpl.bcc, "bcc")) r.bcc.push_back(a);
}

}  // namespace

NotifyOutcome notify(core::Context& ctx, const db::Site& site, const Notification& n) {
  if (site.disable_email) return NotifyOutcome::Disabled;
  auto tmpl = find_template_recent(ctx, site.id, n.event, n.locale);
  if (!tmpl) return NotifyOutcome::NoTemplate;

  MergeValues values = n.data;
  if (!n.sql.empty()) {
    for (auto& [k, v] : run_sql_field(ctx, site, n, values)) values[k] = v;
  }
  const ToList to = to_list(n, values);
  const bool bcc_only = to.text == "NONE";
  Recipients r;
  if (!bcc_only) r.to = addresses(to.text, to.field);
  add_copies(ctx, site, *tmpl, bcc_only, r);
  if (r.to.empty() && (!bcc_only || r.bcc.empty())) return NotifyOutcome::NoRecipient;

  db::OutboxEntry entry = compose(site, *tmpl, values, r, n.request_id, RecordLink{n.table, n.master_id});
  entry.priority = std::max(entry.priority, db::kPriorityNormal);  // high is for the account flows only
  if (entry.mail.recipient.size() > kMaxRecipientBytes) {
    throw http::ApiError::validation(to.field, "too many recipients (2048 bytes at most)");
  }
  enqueue(ctx, entry);
  return NotifyOutcome::Queued;
}

}  // namespace svc::messaging
