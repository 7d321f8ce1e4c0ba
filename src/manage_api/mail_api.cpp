// /admin/sites/{site}/mail, /suppressions and /bounce-guard: the Mail
// capability (manage/mail.hpp). Recipient addresses are personal data: only
// the site's own administrators see its log (require_admin).
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "manage/mail.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

// /admin/sites/{site}/mail/{id}...: the mail's id is segment 4.
constexpr size_t kMailSegment = 4;

// A DATETIME column's text ("2026-11-29 10:00:00", UTC) as RFC 3339; null for none.
void write_datetime(http::JsonWriter& w, std::string_view key, const std::string& text) {
  if (text.size() != 19) {
    w.kv_null(key);
  } else {
    w.kv(key, text.substr(0, 10) + "T" + text.substr(11) + "Z");
  }
}

void write_mail_row(http::JsonWriter& w, const db::OutboxListing& r) {
  w.open()
      .kv("id", r.id)
      .kv("event", r.event)
      .kv("status", r.status)
      .kv("recipient", r.recipient)
      .kv("subject", r.subject)
      .kv("attempts", r.attempts);
  write_datetime(w, "created_at", r.created_at);
  write_datetime(w, "next_attempt_at", r.status == "Pending" ? r.next_attempt_at : "");
  write_datetime(w, "sent_at", r.sent_at);
  if (r.last_error.empty()) {
    w.kv_null("last_error");
  } else {
    w.kv("last_error", r.last_error);
  }
  w.close();
}

void write_addresses(http::JsonWriter& w, std::string_view key, const std::vector<std::string>& list) {
  w.open_array(key);
  for (const auto& address : list) w.s(address);
  w.close_array();
}

void write_message(http::JsonWriter& w, const manage::MailEntry& e) {
  w.open("message").kv("from", e.mail.from).kv("from_name", e.mail.from_name);
  write_addresses(w, "to", e.mail.to);
  write_addresses(w, "cc", e.mail.cc);
  write_addresses(w, "bcc", e.mail.bcc);
  w.kv("subject", e.mail.subject).kv("message_id", e.mail.message_id);
  write_time(w, "date", e.mail.date_unix);
  w.kv("html", e.mail.html).kv("text", e.text).close();
}

}  // namespace

http::Response mail_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  manage::MailQuery query;
  query.status = query_param(request, "status").value_or("");
  query.event = query_param(request, "event").value_or("");
  query.recipient = query_param(request, "recipient").value_or("");
  query.since = query_param(request, "since").value_or("");
  query.until = query_param(request, "until").value_or("");
  const int limit = manage::page_limit(query_integer(request, "limit"));
  auto page = manage::list_mail(ctx, actor, query, query_param(request, "cursor").value_or(""), limit);
  http::JsonWriter w;
  success(w);
  w.open_array("mail");
  for (const auto& row : page.rows) write_mail_row(w, row);
  w.close_array();
  write_next(w, page.next_cursor);
  return reply(w);
}

http::Response mail_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const manage::MailEntry e = manage::show_mail(ctx, actor, path_id(request, kMailSegment));
  http::JsonWriter w;
  success(w);
  w.key("mail");
  write_mail_row(w, e.row);
  write_message(w, e);
  w.open_array("bounces");
  for (const auto& b : e.bounces) {
    w.open().kv("address", b.address).kv("kind", b.kind).kv("status", b.status);
    write_datetime(w, "created_at", b.created_at);
    w.close();
  }
  w.close_array().open_array("suppressed");
  for (const auto& [address, reason] : e.suppressed) w.open().kv("address", address).kv("reason", reason).close();
  w.close_array();
  return reply(w);
}

http::Response mail_resend(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  const db::OutboxListing row = manage::resend_mail(ctx, actor, path_id(request, kMailSegment));
  http::JsonWriter w;
  success(w);
  w.key("mail");
  write_mail_row(w, row);
  return reply(w);
}

http::Response suppressions_list(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const int limit = manage::page_limit(query_integer(request, "limit"));
  auto page = manage::list_suppressions(ctx, actor, query_param(request, "reason").value_or(""),
                                        query_param(request, "cursor").value_or(""), limit);
  http::JsonWriter w;
  success(w);
  w.open_array("suppressions");
  for (const auto& s : page.rows) {
    w.open().kv("address", s.address).kv("reason", s.reason).kv("detail", s.detail);
    if (s.log_id > 0) {
      w.kv("mail_id", s.log_id);
    } else {
      w.kv_null("mail_id");
    }
    write_datetime(w, "created_at", s.created_at);
    w.close();
  }
  w.close_array();
  write_next(w, page.next_cursor);
  return reply(w);
}

http::Response suppression_add(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  http::Fields fields(request.json);
  auto email = fields.required_string("email", 254);
  auto reason = fields.optional_string("reason", 16);
  auto detail = fields.optional_string("detail", 255);
  fields.throw_if_errors();
  const bool fresh = manage::add_suppression(ctx, actor, *email, reason.value_or(""), detail.value_or(""));
  http::JsonWriter w;
  success(w);
  w.kv("added", fresh);
  return reply(w);
}

http::Response suppression_remove(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  auto email = query_param(request, "email");
  if (!email) throw http::ApiError::validation("email", "email is required: ?email=ADDRESS");
  const int removed = manage::remove_suppression(ctx, actor, *email, query_param(request, "reason").value_or(""));
  http::JsonWriter w;
  success(w);
  w.kv("removed", removed);
  return reply(w);
}

http::Response bounce_guard_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  const manage::BounceGuard g = manage::bounce_guard(ctx, actor);
  http::JsonWriter w;
  success(w);
  w.open("bounce_guard")
      .kv("enabled", g.max_rate_percent > 0)
      .kv("max_rate_percent", g.max_rate_percent)
      .kv("min_mails", g.min_mails)
      .kv("hard_bounces_last_hour", g.hard_bounces)
      .kv("mails_last_hour", g.mails)
      .kv("holding", g.holding)
      .close();
  return reply(w);
}

}  // namespace svc::manage_api
