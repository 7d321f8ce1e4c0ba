#include "manage/mail.hpp"

#include <ctime>
#include <optional>
#include <tuple>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "db/notification_repo.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "manage/audit.hpp"
#include "messaging/outgoing_mail.hpp"
#include "webhooks/events.hpp"

namespace svc::manage {
namespace {

constexpr const char* kNotFound = "Message not found";
constexpr size_t kMaxEvent = 190;   // svc_notification_log.event
constexpr size_t kMaxDetail = 255;  // svc_mail_suppressions.detail

// "2026-11-29T10:00:00Z" or "2026-11-29" (midnight) as DATETIME text
// "2026-11-29 10:00:00"; nullopt for anything else, 2026-02-30 included.
std::optional<std::string> datetime_of(const std::string& text) {
  const std::string t = text.size() == 10 ? text + "T00:00:00Z" : text;
  std::tm tm{};
  const char* end = t.size() == 20 ? strptime(t.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) : nullptr;
  if (end == nullptr || *end != '\0') return std::nullopt;
  const long long unix_seconds = timegm(&tm);
  if (core::format_utc(unix_seconds, "%Y-%m-%dT%H:%M:%SZ") != t) return std::nullopt;
  return core::format_utc(unix_seconds, "%Y-%m-%d %H:%M:%S");
}

// The repository's filter for a query; 400 naming each bad field.
db::OutboxFilter checked_filter(const MailQuery& q) {
  std::vector<http::FieldError> errors;
  db::OutboxFilter f;
  if (!q.status.empty() && q.status != "Pending" && q.status != "Sent" && q.status != "Failed") {
    errors.push_back({"status", "status must be Pending, Sent or Failed"});
  }
  f.status = q.status;
  if (q.event.size() > kMaxEvent || core::has_controls(q.event)) {
    errors.push_back({"event", "event must be a template's event"});
  }
  f.event = q.event;
  if (!q.recipient.empty() && !http::is_valid_email(q.recipient)) {
    errors.push_back({"recipient", "recipient must be an e-mail address"});
  }
  f.recipient = q.recipient;
  for (auto [name, text, out] : {std::tuple("since", &q.since, &f.since), std::tuple("until", &q.until, &f.until)}) {
    if (text->empty()) continue;
    auto datetime = datetime_of(*text);
    if (!datetime) {
      errors.push_back({name, std::string(name) + " must be a date (2026-11-29) or a UTC time (2026-11-29T10:00:00Z)"});
    }
    *out = datetime.value_or("");
  }
  if (!errors.empty()) throw http::ApiError::validation(errors);
  return f;
}

[[noreturn]] void invalid_cursor() { throw http::ApiError::validation("cursor", "Invalid cursor"); }

// A cursor's position is its fields joined by '\n' (none of them holds one).
std::vector<std::string> position_fields(const std::string& position, size_t count) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t end; (end = position.find('\n', start)) != std::string::npos; start = end + 1) {
    fields.push_back(position.substr(start, end - start));
  }
  fields.push_back(position.substr(start));
  if (fields.size() != count) invalid_cursor();
  return fields;
}

std::string checked_reason(const std::string& reason) {
  if (!reason.empty() && !db::is_suppression_reason(reason)) {
    throw http::ApiError::validation("reason", "reason must be bounce, complaint, unsubscribe or manual");
  }
  return reason;
}

std::string checked_email(const std::string& email) {
  if (!http::is_valid_email(email)) throw http::ApiError::validation("email", "email must be a valid e-mail address");
  return core::ascii_lower(email);
}

}  // namespace

Page<db::OutboxListing> list_mail(core::Context& ctx, const Actor& actor, const MailQuery& query,
                                  const std::string& cursor, int limit) {
  const db::OutboxFilter filter = checked_filter(query);
  // The cursor is bound to the filters: another list's cursor is invalid here.
  const std::string kind = "mail\n" + filter.status + "\n" + filter.event + "\n" + core::ascii_lower(filter.recipient) +
                           "\n" + filter.since + "\n" + filter.until;
  std::optional<db::OutboxPosition> after;
  if (const std::string position = read_cursor(ctx, kind, actor.site_id, cursor); !position.empty()) {
    auto fields = position_fields(position, 2);
    auto id = core::parse_id(fields[1]);
    if (!id) invalid_cursor();
    after = db::OutboxPosition{fields[0], *id};
  }
  auto rows = db::OutboxRepo(ctx.db).site_page(actor.site_id, filter, after, limit + 1);
  return paged(ctx, kind, actor.site_id, std::move(rows), limit,
               [](const db::OutboxListing& r) { return r.created_at + "\n" + std::to_string(r.id); });
}

MailEntry show_mail(core::Context& ctx, const Actor& actor, long long id) {
  db::OutboxRepo outbox(ctx.db);
  auto row = outbox.find(actor.site_id, id);
  auto message = row ? outbox.message_shown(actor.site_id, id) : std::nullopt;
  if (!row || !message) throw http::ApiError::failed(404, kNotFound);
  MailEntry e;
  e.row = std::move(*row);
  e.mail = messaging::outgoing_mail_for(*message);
  e.text = messaging::text_part(e.mail);
  db::SuppressionRepo suppressions(ctx.db);
  e.bounces = suppressions.bounces_of(actor.site_id, id);
  // Bulk mail is stopped by every reason: these are all of them.
  e.suppressed = suppressions.blocking(actor.site_id, db::kPriorityBulk, messaging::envelope_recipients(e.mail));
  return e;
}

db::OutboxListing resend_mail(core::Context& ctx, const Actor& actor, long long id) {
  require_role(actor, Role::kAdmin);
  db::OutboxRepo outbox(ctx.db);
  auto message = outbox.message_shown(actor.site_id, id);
  auto row = message ? outbox.find(actor.site_id, id) : std::nullopt;
  if (!row) throw http::ApiError::failed(404, kNotFound);
  if (row->status != "Failed") {
    throw http::ApiError::failed(409, "Message is " + row->status + ": only a Failed message can be resent");
  }
  // A Failed mail's one-time link or code was replaced when it failed
  // (db/outbox_repo.hpp): sent again it would carry "[redacted]".
  if (message->mail.body.find(db::kRedacted) != std::string::npos ||
      message->mail.subject.find(db::kRedacted) != std::string::npos) {
    throw http::ApiError::failed(409, "Message held a one-time link or code, which is not kept: ask for a new one");
  }
  // The change and its audit row commit together.
  webhooks::atomically(ctx.db, [&] {
    if (!outbox.requeue_failed(actor.site_id, id)) {
      throw http::ApiError::failed(409, "Message is no longer Failed: only a Failed message can be resent");
    }
    audit(ctx, actor, "mail.resend", "message " + std::to_string(id), "was Failed: " + row->last_error);
    return true;
  });
  return *outbox.find(actor.site_id, id);
}

Page<db::Suppression> list_suppressions(core::Context& ctx, const Actor& actor, const std::string& reason,
                                        const std::string& cursor, int limit) {
  const std::string kind = "suppressions\n" + checked_reason(reason);
  std::optional<db::SuppressionPosition> after;
  if (const std::string position = read_cursor(ctx, kind, actor.site_id, cursor); !position.empty()) {
    auto fields = position_fields(position, 3);
    after = db::SuppressionPosition{fields[0], fields[1], fields[2]};
  }
  auto rows = db::SuppressionRepo(ctx.db).site_page(actor.site_id, reason, after, limit + 1);
  return paged(ctx, kind, actor.site_id, std::move(rows), limit,
               [](const db::Suppression& s) { return s.created_at + "\n" + s.address + "\n" + s.reason; });
}

bool add_suppression(core::Context& ctx, const Actor& actor, const std::string& email, const std::string& reason,
                     const std::string& detail) {
  require_role(actor, Role::kAdmin);
  const std::string address = checked_email(email);
  const std::string why = checked_reason(reason.empty() ? "manual" : reason);
  if (detail.size() > kMaxDetail || core::has_controls(detail)) {
    throw http::ApiError::validation("detail", "detail must be one line of at most 255 bytes");
  }
  return webhooks::atomically(ctx.db, [&] {
    const bool fresh = db::SuppressionRepo(ctx.db).add(actor.site_id, address, why, detail);
    audit(ctx, actor, "mail.suppress", "address " + address, why + (fresh ? "" : ", already was"));
    return fresh;
  });
}

int remove_suppression(core::Context& ctx, const Actor& actor, const std::string& email, const std::string& reason) {
  require_role(actor, Role::kAdmin);
  const std::string address = checked_email(email);
  const std::string why = checked_reason(reason);
  return webhooks::atomically(ctx.db, [&] {
    const int removed = db::SuppressionRepo(ctx.db).remove(actor.site_id, address, why);
    if (removed == 0) throw http::ApiError::failed(404, "Suppression not found");
    audit(ctx, actor, "mail.unsuppress", "address " + address,
          (why.empty() ? "every reason" : why) + ", " + std::to_string(removed) + " removed");
    return removed;
  });
}

BounceGuard bounce_guard(core::Context& ctx, const Actor& actor) {
  BounceGuard g;
  g.max_rate_percent = ctx.config.smtp.max_bounce_rate;
  g.min_mails = ctx.config.smtp.bounce_rate_min_mails;
  const db::BounceRate rate = db::SuppressionRepo(ctx.db).bounce_rate(actor.site_id);
  g.hard_bounces = rate.hard;
  g.mails = rate.mails;
  // The rule of db::kSitesOverBounceRate, which svc-sender's claim applies.
  g.holding = g.max_rate_percent > 0 && g.mails >= g.min_mails && g.hard_bounces * 100 > g.max_rate_percent * g.mails;
  return g;
}

long long mail_site(core::Context& ctx, long long id) {
  auto row = db::OutboxRepo(ctx.db).find(id);
  if (!row) throw http::ApiError::failed(404, kNotFound);
  return row->site_id;
}

std::vector<db::OutboxListing> all_sites_mail(core::Context& ctx, const std::string& status, int limit) {
  return db::OutboxRepo(ctx.db).list(status, 0, limit);
}

std::vector<db::Suppression> all_sites_suppressions(core::Context& ctx, const std::string& reason, int limit) {
  return db::SuppressionRepo(ctx.db).list(0, checked_reason(reason), limit);
}

OutboxOverview outbox_overview(core::Context& ctx) {
  OutboxOverview o;
  db::OutboxRepo outbox(ctx.db);
  outbox.set_bounce_guard(ctx.config.smtp.max_bounce_rate, ctx.config.smtp.bounce_rate_min_mails);
  o.stats = outbox.stats();
  const auto counts = db::SuppressionRepo(ctx.db).counts_by_reason();
  for (const char* reason : db::kSuppressionReasons) {
    long long n = 0;
    for (const auto& [r, count] : counts) {
      if (r == reason) n = count;
    }
    o.suppressed.emplace_back(reason, n);
  }
  return o;
}

}  // namespace svc::manage
