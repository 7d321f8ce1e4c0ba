#include "messaging/builtin_templates.hpp"

#include "messaging/locale.hpp"

namespace svc::messaging {
namespace {

struct Entry {
  const char* event;
  const char* language;
  BuiltinText text;
};

// English first for each event: the fallback of every other language.
constexpr Entry kTexts[] = {
    {"password-reset",
     "en",
     {"Reset your password",
      "<p>Someone asked to reset the password of [email].</p>"
      "<p><a href=\"[link]\">Choose a new password</a> (the link is valid for [minutes] minutes).</p>"
      "<p>If it was not you, you can ignore this e-mail.</p>"}},
    {"password-reset",
     "de",
     {"Passwort zur\u00fccksetzen",
      "<p>Jemand m\u00f6chte das Passwort von [email] zur\u00fccksetzen.</p>"
      "<p><a href=\"[link]\">Neues Passwort w\u00e4hlen</a> (der Link ist [minutes] Minuten g\u00fcltig).</p>"
      "<p>Wenn Sie das nicht waren, k\u00f6nnen Sie diese E-Mail ignorieren.</p>"}},
    {"mfa-enabled",
     "en",
     {"Two-factor authentication is on",
      "<p>Two-factor authentication was turned on for [email].</p>"
      "<p>If it was not you, reset your password and contact us.</p>"}},
    {"mfa-enabled",
     "de",
     {"Zwei-Faktor-Authentifizierung ist aktiviert",
      "<p>F\u00fcr [email] wurde die Zwei-Faktor-Authentifizierung aktiviert.</p>"
      "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>"}},
    {"mfa-disabled",
     "en",
     {"Two-factor authentication is off",
      "<p>Two-factor authentication was turned off for [email].</p>"
      "<p>If it was not you, reset your password and contact us.</p>"}},
    {"mfa-disabled",
     "de",
     {"Zwei-Faktor-Authentifizierung ist deaktiviert",
      "<p>F\u00fcr [email] wurde die Zwei-Faktor-Authentifizierung deaktiviert.</p>"
      "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>"}},
    {"mfa-recovery-codes",
     "en",
     {"New recovery codes",
      "<p>New recovery codes were made for [email]; the earlier ones no longer work.</p>"
      "<p>If it was not you, reset your password and contact us.</p>"}},
    {"mfa-recovery-codes",
     "de",
     {"Neue Wiederherstellungscodes",
      "<p>F\u00fcr [email] wurden neue Wiederherstellungscodes erstellt; die bisherigen gelten nicht mehr.</p>"
      "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>"}},
};

}  // namespace

std::optional<BuiltinText> builtin_text(std::string_view event, std::string_view locale) {
  const std::string tag = normalize_locale(locale);
  const std::string language = tag.substr(0, tag.find('-'));
  std::optional<BuiltinText> english;
  for (const auto& e : kTexts) {
    if (event != e.event) continue;
    if (language == e.language) return e.text;
    if (!english) english = e.text;
  }
  return english;
}

std::optional<db::Template> account_template(core::Context& ctx, const db::Site& site, const std::string& event,
                                             const std::string& locale) {
  auto own = db::NotificationRepo(ctx.db).find_enabled(site.id, event, locale_fallbacks(locale));
  if (own) return own;
  const auto text = builtin_text(event, locale);
  if (!text) return std::nullopt;
  db::Template t;
  t.site_id = site.id;
  t.event = event;
  t.subject = text->subject;
  t.content = text->content;
  return t;
}

}  // namespace svc::messaging
