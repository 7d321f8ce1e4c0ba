#include "auth/mfa_mail.hpp"

#include "core/text.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "messaging/compose.hpp"
#include "messaging/outbox.hpp"

namespace svc::auth {
namespace {

struct BuiltIn {
  const char* event;
  const char* subject;
  const char* content;
};

BuiltIn built_in(MfaChange change) {
  switch (change) {
    case MfaChange::kEnabled:
      return {"mfa-enabled", "Two-factor authentication is on",
              "<p>Two-factor authentication was turned on for [email].</p>"
              "<p>If it was not you, reset your password and contact us.</p>"};
    case MfaChange::kDisabled:
      return {"mfa-disabled", "Two-factor authentication is off",
              "<p>Two-factor authentication was turned off for [email].</p>"
              "<p>If it was not you, reset your password and contact us.</p>"};
    case MfaChange::kPasskeyAdded:
      return {"passkey-added", "A passkey was added",
              "<p>A passkey was added to the account of [email].</p>"
              "<p>If it was not you, reset your password and contact us.</p>"};
    case MfaChange::kPasskeyRemoved:
      return {"passkey-removed", "A passkey was removed",
              "<p>A passkey was removed from the account of [email].</p>"
              "<p>If it was not you, reset your password and contact us.</p>"};
    case MfaChange::kRecoveryCodes:
      break;
  }
  return {"mfa-recovery-codes", "New recovery codes",
          "<p>New recovery codes were made for [email]; the earlier ones no longer work.</p>"
          "<p>If it was not you, reset your password and contact us.</p>"};
}

}  // namespace

void queue_mfa_mail(core::Context& ctx, const http::Request& request, long long site_id, const db::User& user,
                    MfaChange change) {
  if (site_id <= 0) return;
  auto site = db::SiteRepo(ctx.db).find(site_id);
  if (!site || !site->active || site->disable_email) return;
  const BuiltIn fallback = built_in(change);
  auto tmpl = db::NotificationRepo(ctx.db).find_enabled(site->id, fallback.event);
  if (!tmpl) {
    tmpl = db::Template{};
    tmpl->site_id = site->id;
    tmpl->event = fallback.event;
    tmpl->subject = fallback.subject;
    tmpl->content = fallback.content;
  }
  messaging::Recipients to;
  to.to = {core::strip_controls(user.email)};
  to.bcc = {core::strip_controls(tmpl->bcc)};
  db::OutboxEntry entry = messaging::compose(
      *site, *tmpl, {{"email", user.email}, {"firstName", user.first_name}, {"lastName", user.last_name}}, to,
      request.request_id);
  entry.priority = db::kPriorityHigh;  // account mail, like the password reset
  messaging::enqueue(ctx, entry);
}

}  // namespace svc::auth
