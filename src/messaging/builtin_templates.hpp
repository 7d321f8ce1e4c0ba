#pragma once
// The built-in account mail (password reset, second-factor notices) in the
// languages svc ships, and the choice between them and a site's own
// templates (docs/decisions.md "Deliverability": languages).

#include <optional>
#include <string>
#include <string_view>

#include "core/context.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"

namespace svc::messaging {

struct BuiltinText {
  const char* subject;
  const char* content;  // HTML with [placeholders]
};

// The built-in text of `event` in the language of `locale` (its first
// subtag: "de-at" -> German), English when svc has not got that language;
// nullopt for an event without a built-in text.
std::optional<BuiltinText> builtin_text(std::string_view event, std::string_view locale);

// The template an account mail of `event` to a reader of `locale` uses: the
// site's enabled template in that locale or a fallback of it (de-at -> de ->
// default); else, when the site has none at all, the built-in text in the
// reader's language, as a template of the site. nullopt when neither exists.
std::optional<db::Template> account_template(core::Context& ctx, const db::Site& site, const std::string& event,
                                             const std::string& locale);

}  // namespace svc::messaging
