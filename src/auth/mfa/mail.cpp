#include "auth/mfa/mail.hpp"

#include <optional>

#include "auth/mfa/notice.hpp"
#include "config/config.hpp"
#include "core/text.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "messaging/builtin_templates.hpp"
#include "messaging/compose.hpp"
#include "messaging/outbox.hpp"

namespace svc::auth {
namespace {

const char* event_of(MfaChange change) {
  switch (change) {
    case MfaChange::kEnabled:
      return "mfa-enabled";
    case MfaChange::kDisabled:
      return "mfa-disabled";
    case MfaChange::kPasskeyAdded:
      return "passkey-added";
    case MfaChange::kPasskeyRemoved:
      return "passkey-removed";
    case MfaChange::kLocked:
      return "mfa-locked";
    case MfaChange::kRecoveryCodes:
      break;
  }
  return "mfa-recovery-codes";
}

// The site whose mail settings send the notice: the token's, or for a
// token without one the service itself (site 0: no template of its own,
// no DKIM key, no suppression list but its own).
std::optional<db::Site> sending_site(core::Context& ctx, long long site_id) {
  if (site_id <= 0) {
    if (ctx.config.smtp.from.empty()) return std::nullopt;
    db::Site service;
    service.name = "svc";
    service.email_from = ctx.config.smtp.from;
    return service;
  }
  auto site = db::SiteRepo(ctx.db).find(site_id);
  if (!site || !site->active || site->disable_email) return std::nullopt;
  return site;
}

}  // namespace

std::optional<db::OutboxEntry> account_notice(core::Context& ctx, const http::Request& request, long long site_id,
                                              const db::TableName& table, const db::User& user,
                                              const std::string& event, messaging::MergeValues values,
                                              const std::string& to) {
  auto site = sending_site(ctx, site_id);
  if (!site) return std::nullopt;
  const std::string locale = db::UserRepo(ctx.db, table).locale(user.id);
  auto tmpl = messaging::account_template(ctx, *site, event, locale);
  if (!tmpl) return std::nullopt;
  messaging::Recipients recipients;
  recipients.to = {core::strip_controls(to.empty() ? user.email : to)};
  recipients.bcc = {core::strip_controls(tmpl->bcc)};
  values["email"] = user.email;
  values["firstName"] = user.first_name;
  values["lastName"] = user.last_name;
  db::OutboxEntry entry = messaging::compose(*site, *tmpl, values, recipients, request.request_id);
  entry.priority = db::kPriorityHigh;  // account mail, like the password reset
  return entry;
}

void queue_account_notice(core::Context& ctx, const http::Request& request, long long site_id,
                          const db::TableName& table, const db::User& user, const std::string& event,
                          messaging::MergeValues values, const std::string& to) {
  if (auto entry = account_notice(ctx, request, site_id, table, user, event, std::move(values), to)) {
    messaging::enqueue(ctx, *entry);
  }
}

void queue_mfa_mail(core::Context& ctx, const http::Request& request, long long site_id, const db::TableName& table,
                    const db::User& user, MfaChange change) {
  queue_account_notice(ctx, request, site_id, table, user, event_of(change));
}

}  // namespace svc::auth
