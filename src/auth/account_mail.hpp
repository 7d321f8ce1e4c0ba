#pragma once
// The account mail svc writes to one user (reset, sign-in code, address
// verification): the site's enabled template of the event, else the
// built-in one (messaging/builtin_templates.hpp), addressed to the user.

#include <string>

#include "core/context.hpp"
#include "db/notification_repo.hpp"
#include "db/site_repo.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"
#include "messaging/template.hpp"

namespace svc::auth {

// The outbox entry of template `tmpl` of the site for `user`, merged with
// `values` plus email, firstName and lastName (the sender, BCC list,
// subject and content are the template's).
db::OutboxEntry user_mail(const http::Request& request, const db::Site& site, const db::Template& tmpl,
                          const db::User& user, messaging::MergeValues values);

// user_mail with the site's enabled template of `event` in the reader's
// `locale` (or a fallback of it), else the built-in one in that language
// (messaging::account_template). Reads the template; writes nothing.
// REQUIRES: `event` has a built-in template.
db::OutboxEntry account_mail(core::Context& ctx, const http::Request& request, const db::Site& site,
                             const std::string& event, const db::User& user, messaging::MergeValues values,
                             const std::string& locale);

}  // namespace svc::auth
