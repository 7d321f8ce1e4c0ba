#include "messaging/builtin_templates.hpp"

#include <stdexcept>
#include <string>

namespace svc::messaging {
namespace {

const BuiltInTemplate kBuiltIns[] = {
    {"password-reset", "Reset your password",
     "<p>Someone asked to reset the password of [email].</p>"
     "<p><a href=\"[link]\">Choose a new password</a> (the link is valid for [minutes] minutes).</p>"
     "<p>If it was not you, you can ignore this e-mail.</p>",
     "email firstName lastName link minutes"},
    {"mfa-enabled", "Two-factor authentication is on",
     "<p>Two-factor authentication was turned on for [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"mfa-disabled", "Two-factor authentication is off",
     "<p>Two-factor authentication was turned off for [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"passkey-added", "A passkey was added",
     "<p>A passkey was added to the account of [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"passkey-removed", "A passkey was removed",
     "<p>A passkey was removed from the account of [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"mfa-recovery-codes", "New recovery codes",
     "<p>New recovery codes were made for [email]; the earlier ones no longer work.</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"email-code", "Your sign-in code",
     "<p>Your sign-in code for [email] is:</p>"
     "<p style=\"font-size:1.5em;letter-spacing:.2em\"><strong>[code]</strong></p>"
     "<p>It is valid for [minutes] minutes and can be used once. Never tell it to anyone.</p>"
     "<p>If it was not you, you can ignore this e-mail.</p>",
     "email firstName lastName code minutes"},
    {"verify-email", "Confirm your e-mail address",
     "<p>Please confirm that [email] is your address.</p>"
     "<p><a href=\"[link]\">Confirm my address</a> (the link is valid for [hours] hours; the page asks "
     "you to press a button).</p>"
     "<p>If you did not sign up, you can ignore this e-mail.</p>",
     "email firstName lastName link hours"},
};

}  // namespace

std::span<const BuiltInTemplate> builtin_templates() { return kBuiltIns; }

const BuiltInTemplate& builtin_template(std::string_view event) {
  for (const auto& t : kBuiltIns) {
    if (event == t.event) return t;
  }
  throw std::logic_error("no built-in template '" + std::string(event) + "'");
}

db::Template template_or_builtin(const std::optional<db::Template>& own, long long site_id, std::string_view event) {
  if (own) return *own;
  const BuiltInTemplate& b = builtin_template(event);
  db::Template t;
  t.site_id = site_id;
  t.event = b.event;
  t.subject = b.subject;
  t.content = b.content;
  return t;
}

}  // namespace svc::messaging
