#include "messaging/builtin_templates.hpp"

#include "messaging/locale.hpp"

namespace svc::messaging {
namespace {

const BuiltInTemplate kBuiltIns[] = {
    {"password-reset", "en", "Reset your password",
     "<p>Someone asked to reset the password of [email].</p>"
     "<p><a href=\"[link]\">Choose a new password</a> (the link is valid for [minutes] minutes).</p>"
     "<p>If it was not you, you can ignore this e-mail.</p>",
     "email firstName lastName link minutes"},
    {"password-reset", "de", "Passwort zur\u00fccksetzen",
     "<p>Jemand m\u00f6chte das Passwort von [email] zur\u00fccksetzen.</p>"
     "<p><a href=\"[link]\">Neues Passwort w\u00e4hlen</a> (der Link ist [minutes] Minuten g\u00fcltig).</p>"
     "<p>Wenn Sie das nicht waren, k\u00f6nnen Sie diese E-Mail ignorieren.</p>",
     "email firstName lastName link minutes"},
    {"mfa-enabled", "en", "Two-factor authentication is on",
     "<p>Two-factor authentication was turned on for [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"mfa-enabled", "de", "Zwei-Faktor-Authentifizierung ist aktiviert",
     "<p>F\u00fcr [email] wurde die Zwei-Faktor-Authentifizierung aktiviert.</p>"
     "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>",
     "email firstName lastName"},
    {"mfa-disabled", "en", "Two-factor authentication is off",
     "<p>Two-factor authentication was turned off for [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"mfa-disabled", "de", "Zwei-Faktor-Authentifizierung ist deaktiviert",
     "<p>F\u00fcr [email] wurde die Zwei-Faktor-Authentifizierung deaktiviert.</p>"
     "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>",
     "email firstName lastName"},
    {"passkey-added", "en", "A passkey was added",
     "<p>A passkey was added to the account of [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"passkey-added", "de", "Ein Passkey wurde hinzugef\u00fcgt",
     "<p>Dem Konto von [email] wurde ein Passkey hinzugef\u00fcgt.</p>"
     "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>",
     "email firstName lastName"},
    {"passkey-removed", "en", "A passkey was removed",
     "<p>A passkey was removed from the account of [email].</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"passkey-removed", "de", "Ein Passkey wurde entfernt",
     "<p>Vom Konto von [email] wurde ein Passkey entfernt.</p>"
     "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>",
     "email firstName lastName"},
    {"mfa-recovery-codes", "en", "New recovery codes",
     "<p>New recovery codes were made for [email]; the earlier ones no longer work.</p>"
     "<p>If it was not you, reset your password and contact us.</p>",
     "email firstName lastName"},
    {"mfa-recovery-codes", "de", "Neue Wiederherstellungscodes",
     "<p>F\u00fcr [email] wurden neue Wiederherstellungscodes erstellt; die bisherigen gelten nicht mehr.</p>"
     "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort zur\u00fcck und kontaktieren Sie uns.</p>",
     "email firstName lastName"},
    {"mfa-locked", "en", "Sign-in paused after wrong codes",
     "<p>Several wrong second-factor codes were entered for [email], so signing in with the second factor is "
     "paused for a while.</p>"
     "<p>If it was not you, someone knows your password: reset it.</p>",
     "email firstName lastName"},
    {"mfa-locked", "de", "Anmeldung nach falschen Codes pausiert",
     "<p>F\u00fcr [email] wurden mehrere falsche Codes des zweiten Faktors eingegeben; die Anmeldung mit dem "
     "zweiten Faktor ist deshalb eine Weile pausiert.</p>"
     "<p>Wenn Sie das nicht waren, kennt jemand Ihr Passwort: Setzen Sie es zur\u00fcck.</p>",
     "email firstName lastName"},
    {"email-code", "en", "Your sign-in code",
     "<p>Your sign-in code for [email] is:</p>"
     "<p style=\"font-size:1.5em;letter-spacing:.2em\"><strong>[code]</strong></p>"
     "<p>It is valid for [minutes] minutes and can be used once. Never tell it to anyone.</p>"
     "<p>If it was not you, you can ignore this e-mail.</p>",
     "email firstName lastName code minutes"},
    {"email-code", "de", "Ihr Anmeldecode",
     "<p>Ihr Anmeldecode f\u00fcr [email] lautet:</p>"
     "<p style=\"font-size:1.5em;letter-spacing:.2em\"><strong>[code]</strong></p>"
     "<p>Er ist [minutes] Minuten g\u00fcltig und kann einmal verwendet werden. Geben Sie ihn niemandem weiter.</p>"
     "<p>Wenn Sie das nicht waren, k\u00f6nnen Sie diese E-Mail ignorieren.</p>",
     "email firstName lastName code minutes"},
    {"verify-email", "en", "Confirm your e-mail address",
     "<p>Please confirm that [email] is your address.</p>"
     "<p><a href=\"[link]\">Confirm my address</a> (the link is valid for [hours] hours; the page asks "
     "you to press a button).</p>"
     "<p>If you did not sign up, you can ignore this e-mail.</p>",
     "email firstName lastName link hours"},
    {"verify-email", "de", "Best\u00e4tigen Sie Ihre E-Mail-Adresse",
     "<p>Bitte best\u00e4tigen Sie, dass [email] Ihre Adresse ist.</p>"
     "<p><a href=\"[link]\">Adresse best\u00e4tigen</a> (der Link ist [hours] Stunden g\u00fcltig; die Seite bittet "
     "Sie, eine Schaltfl\u00e4che zu dr\u00fccken).</p>"
     "<p>Wenn Sie sich nicht registriert haben, k\u00f6nnen Sie diese E-Mail ignorieren.</p>",
     "email firstName lastName link hours"},
    {"new-sign-in", "en", "New sign-in to your account",
     "<p>Someone signed in to the account of [email] from a device we have not seen before.</p>"
     "<p>Time: [time]<br>Device: [device]<br>Network: [network]</p>"
     "<p>If it was you, there is nothing to do.</p>"
     "<p>If it was not you, <a href=\"[link]\">sign out everywhere and reset my password</a> (the link is "
     "valid for [days] days; the page asks you to press a button).</p>",
     "email firstName lastName time device network link days"},
    {"new-sign-in", "de", "Neue Anmeldung bei Ihrem Konto",
     "<p>Jemand hat sich bei dem Konto von [email] von einem Ger\u00e4t angemeldet, das wir noch nicht "
     "kennen.</p>"
     "<p>Zeit: [time]<br>Ger\u00e4t: [device]<br>Netzwerk: [network]</p>"
     "<p>Wenn Sie das waren, ist nichts zu tun.</p>"
     "<p>Wenn nicht: <a href=\"[link]\">\u00dcberall abmelden und Passwort zur\u00fccksetzen</a> (der Link "
     "ist [days] Tage g\u00fcltig; die Seite bittet Sie, eine Schaltfl\u00e4che zu dr\u00fccken).</p>",
     "email firstName lastName time device network link days"},
    {"password-changed", "en", "Your password was changed",
     "<p>The password of [email] was changed.</p>"
     "<p>If it was not you, reset your password at once and contact us.</p>",
     "email firstName lastName"},
    {"password-changed", "de", "Ihr Passwort wurde ge\u00e4ndert",
     "<p>Das Passwort von [email] wurde ge\u00e4ndert.</p>"
     "<p>Wenn Sie das nicht waren, setzen Sie Ihr Passwort sofort zur\u00fcck und kontaktieren Sie uns.</p>",
     "email firstName lastName"},
    {"email-change-confirm", "en", "Confirm your new e-mail address",
     "<p>Please confirm that [newEmail] is to be the new address of the account of [email].</p>"
     "<p><a href=\"[link]\">Confirm my new address</a> (the link is valid for [hours] hours; the page asks "
     "you to press a button).</p>"
     "<p>If you did not ask for this, you can ignore this e-mail.</p>",
     "email firstName lastName newEmail link hours"},
    {"email-change-confirm", "de", "Best\u00e4tigen Sie Ihre neue E-Mail-Adresse",
     "<p>Bitte best\u00e4tigen Sie, dass [newEmail] die neue Adresse des Kontos von [email] sein soll.</p>"
     "<p><a href=\"[link]\">Neue Adresse best\u00e4tigen</a> (der Link ist [hours] Stunden g\u00fcltig; die Seite "
     "bittet Sie, eine Schaltfl\u00e4che zu dr\u00fccken).</p>"
     "<p>Wenn Sie das nicht angefordert haben, k\u00f6nnen Sie diese E-Mail ignorieren.</p>",
     "email firstName lastName newEmail link hours"},
    {"email-change-notice", "en", "Your e-mail address is being changed",
     "<p>Someone asked to change the address of the account of [email] to [newEmail].</p>"
     "<p>If it was not you, <a href=\"[link]\">keep my address</a> (the link works for [days] days; the page "
     "asks you to press a button), then reset your password.</p>",
     "email firstName lastName newEmail link days"},
    {"email-change-notice", "de", "Ihre E-Mail-Adresse wird ge\u00e4ndert",
     "<p>Jemand m\u00f6chte die Adresse des Kontos von [email] in [newEmail] \u00e4ndern.</p>"
     "<p>Wenn Sie das nicht waren, <a href=\"[link]\">behalten Sie Ihre Adresse</a> (der Link gilt [days] Tage; "
     "die Seite bittet Sie, eine Schaltfl\u00e4che zu dr\u00fccken), und setzen Sie dann Ihr Passwort "
     "zur\u00fcck.</p>",
     "email firstName lastName newEmail link days"},
    {"email-changed", "en", "Your e-mail address was changed",
     "<p>The account of [email] now uses the address [newEmail]; mail for it no longer comes here.</p>"
     "<p>If it was not you, <a href=\"[link]\">restore my address</a> (the link works for [days] days while "
     "the password stays the same; the page asks you to press a button), then reset your password.</p>",
     "email firstName lastName newEmail link days"},
    {"email-changed", "de", "Ihre E-Mail-Adresse wurde ge\u00e4ndert",
     "<p>Das Konto von [email] verwendet jetzt die Adresse [newEmail]; E-Mails dazu kommen nicht mehr hierher.</p>"
     "<p>Wenn Sie das nicht waren, <a href=\"[link]\">stellen Sie Ihre Adresse wieder her</a> (der Link gilt [days] "
     "Tage, solange das Passwort gleich bleibt; die Seite bittet Sie, eine Schaltfl\u00e4che zu dr\u00fccken), und "
     "setzen Sie dann Ihr Passwort zur\u00fcck.</p>",
     "email firstName lastName newEmail link days"},
    {"invitation", "en", "You are invited",
     "<p>An account was made for [email].</p>"
     "<p><a href=\"[link]\">Choose your password</a> to start (the link is valid for [days] days).</p>"
     "<p>If you did not expect this, you can ignore this e-mail.</p>",
     "email firstName lastName link days"},
    {"invitation", "de", "Sie sind eingeladen",
     "<p>F\u00fcr [email] wurde ein Konto angelegt.</p>"
     "<p><a href=\"[link]\">W\u00e4hlen Sie Ihr Passwort</a>, um zu beginnen (der Link ist [days] Tage "
     "g\u00fcltig).</p>"
     "<p>Wenn Sie das nicht erwartet haben, k\u00f6nnen Sie diese E-Mail ignorieren.</p>",
     "email firstName lastName link days"},
    {"account-deleted", "en", "Your account was deleted",
     "<p>The account of [email] and everything stored with it were deleted.</p>"
     "<p>If it was not you, contact us.</p>",
     "email firstName lastName"},
    {"account-deleted", "de", "Ihr Konto wurde gel\u00f6scht",
     "<p>Das Konto von [email] und alles, was dazu gespeichert war, wurden gel\u00f6scht.</p>"
     "<p>Wenn Sie das nicht waren, kontaktieren Sie uns.</p>",
     "email firstName lastName"},
};

}  // namespace

std::span<const BuiltInTemplate> builtin_templates() { return kBuiltIns; }

std::optional<BuiltInTemplate> builtin_template(std::string_view event, std::string_view locale) {
  const std::string tag = normalize_locale(locale);
  const std::string language = tag.substr(0, tag.find('-'));
  std::optional<BuiltInTemplate> english;
  for (const auto& t : kBuiltIns) {
    if (event != t.event) continue;
    if (language == t.language) return t;
    if (!english) english = t;
  }
  return english;
}

std::optional<db::Template> account_template(core::Context& ctx, const db::Site& site, const std::string& event,
                                             const std::string& locale) {
  auto own = db::NotificationRepo(ctx.db).find_enabled(site.id, event, locale_fallbacks(locale));
  if (own) return own;
  const auto builtin = builtin_template(event, locale);
  if (!builtin) return std::nullopt;
  db::Template t;
  t.site_id = site.id;
  t.event = event;
  t.subject = builtin->subject;
  t.content = builtin->content;
  return t;
}

}  // namespace svc::messaging
