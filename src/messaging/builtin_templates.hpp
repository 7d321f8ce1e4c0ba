#pragma once
// The built-in templates of the account mail svc sends on its own (password
// reset, second-factor notices, e-mail sign-in codes, address verification).
// A site overrides any of them with an enabled template of the same event
// (svc-admin template set); `svc-admin template list --builtin` prints them.
// Pure data; thread-safe.

#include <optional>
#include <span>
#include <string_view>

#include "db/notification_repo.hpp"

namespace svc::messaging {

struct BuiltInTemplate {
  const char* event;
  const char* subject;
  const char* content;  // HTML with [placeholders]; the text part is derived from it (html_text.hpp)
  const char* fields;   // the merge fields svc fills in, for the listing
};

// Every built-in template, in a fixed order.
std::span<const BuiltInTemplate> builtin_templates();

// The built-in template of `event`. REQUIRES: `event` is one of
// builtin_templates() (std::logic_error otherwise: a programming error).
const BuiltInTemplate& builtin_template(std::string_view event);

// The site's template to use for `event`: `own` when the site has an enabled
// one, else the built-in one as a db::Template of site `site_id`.
db::Template template_or_builtin(const std::optional<db::Template>& own, long long site_id, std::string_view event);

}  // namespace svc::messaging
