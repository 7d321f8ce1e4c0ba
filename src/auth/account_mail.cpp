#include "auth/account_mail.hpp"

#include <stdexcept>
#include <string>

#include "core/text.hpp"
#include "messaging/builtin_templates.hpp"
#include "messaging/compose.hpp"

namespace svc::auth {

db::OutboxEntry user_mail(const http::Request& request, const db::Site& site, const db::Template& tmpl,
                          const db::User& user, messaging::MergeValues values) {
  values.emplace("email", user.email);
  values.emplace("firstName", user.first_name);
  values.emplace("lastName", user.last_name);
  messaging::Recipients to;
  to.to = {core::strip_controls(user.email)};
  to.bcc = {core::strip_controls(tmpl.bcc)};  // stored by svc-admin as a checked list
  return messaging::compose(site, tmpl, values, to, request.request_id);
}

db::OutboxEntry account_mail(core::Context& ctx, const http::Request& request, const db::Site& site,
                             const std::string& event, const db::User& user, messaging::MergeValues values,
                             const std::string& locale) {
  const auto tmpl = messaging::account_template(ctx, site, event, locale);
  if (!tmpl) throw std::logic_error("no built-in template '" + event + "'");
  return user_mail(request, site, *tmpl, user, std::move(values));
}

}  // namespace svc::auth
