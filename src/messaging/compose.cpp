#include "messaging/compose.hpp"

#include "core/text.hpp"

namespace svc::messaging {
namespace {

constexpr std::size_t kMaxSubjectBytes = 998;  // svc_notification_log.subject, RFC 5322 line

// The events the account flows (auth/password/reset_service) queue. The API's
// /message/notification lowers these to normal again (notification_service),
// so a client cannot jump the queue by naming its template after them.
bool is_account_event(const std::string& event) {
  return event == "password-reset" || event == "password-changed" || event == "email-code" || event == "verify-email" ||
         event == "new-sign-in";
}

}  // namespace

db::OutboxEntry compose(const db::Site& site, const db::Template& tmpl, const MergeValues& values,
                        const Recipients& recipients, const std::string& request_id, const RecordLink& link) {
  db::OutboxEntry e;
  e.mail.site_id = site.id;
  e.notification_id = tmpl.id;
  e.mail.event = tmpl.event;
  e.mail.recipient = core::join(recipients.to, ",");
  e.mail.from = core::strip_controls(tmpl.from.empty() ? site.email_from : tmpl.from);
  e.mail.cc = core::join(recipients.cc, ",");
  e.mail.bcc = core::join(recipients.bcc, ",");
  e.mail.subject = core::utf8_clean(merge_plain_line(tmpl.subject, values), kMaxSubjectBytes);
  e.mail.body = merge_html(tmpl.content, values);
  e.table_name = link.table;
  e.record_id = link.record_id;
  e.request_id = request_id;
  e.priority = is_account_event(tmpl.event) ? db::kPriorityHigh : tmpl.priority;
  return e;
}

}  // namespace svc::messaging
