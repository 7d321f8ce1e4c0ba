#pragma once
// Account notices beyond the second factor's (issue 38: password changed,
// e-mail change, account deleted), sent the way queue_mfa_mail sends its
// notices (auth/mfa/mail.hpp).

#include <optional>
#include <string>

#include "core/context.hpp"
#include "db/notification_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"
#include "messaging/template.hpp"

namespace svc::auth {

// The outbox entry of the account notice `event` (a built-in template's
// event: "password-changed", "email-change-confirm", ...) to the user, as
// queue_mfa_mail sends it (the site of `site_id` or svc itself, the reader's
// language, high priority), merged with `values` besides email, firstName
// and lastName; addressed to `to` instead when it is not empty. nullopt
// when no mail goes out (as for queue_mfa_mail). Reads; writes nothing.
std::optional<db::OutboxEntry> account_notice(core::Context& ctx, const http::Request& request, long long site_id,
                                              const db::TableName& table, const db::User& user,
                                              const std::string& event, messaging::MergeValues values = {},
                                              const std::string& to = "");

// account_notice, queued when there is one.
void queue_account_notice(core::Context& ctx, const http::Request& request, long long site_id,
                          const db::TableName& table, const db::User& user, const std::string& event,
                          messaging::MergeValues values = {}, const std::string& to = "");

}  // namespace svc::auth
