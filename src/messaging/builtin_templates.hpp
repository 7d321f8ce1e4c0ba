#pragma once
// The built-in templates of the account mail svc sends on its own (password
// reset, second-factor and passkey notices, e-mail sign-in codes, address
// verification, the new-device notice), in the languages svc ships, and the choice between them and
// a site's own templates (docs/decisions.md "Deliverability": languages). A
// site overrides any of them with an enabled template of the same event
// (svc-admin template set [--locale L]); `svc-admin template list --builtin`
// prints them. The data is constant; thread-safe.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/context.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"

namespace svc::messaging {

struct BuiltInTemplate {
  const char* event;
  const char* language;  // "en" first for each event: the fallback of every other language
  const char* subject;
  const char* content;  // HTML with [placeholders]; the text part is derived from it (html_text.hpp)
  const char* fields;   // the merge fields svc fills in, for the listing
};

// Every built-in template in every language, English first for each event.
std::span<const BuiltInTemplate> builtin_templates();

// The built-in template of `event` in the language of `locale` (its first
// subtag: "de-AT" -> German), English when svc has not got that language;
// nullopt for an event without a built-in template.
std::optional<BuiltInTemplate> builtin_template(std::string_view event, std::string_view locale);

// The template an account mail of `event` to a reader of `locale` uses: the
// site's enabled template in that locale or a fallback of it (de-at -> de ->
// default); else the built-in one in the reader's language, as a template of
// the site. nullopt when neither exists.
std::optional<db::Template> account_template(core::Context& ctx, const db::Site& site, const std::string& event,
                                             const std::string& locale);

}  // namespace svc::messaging
