#pragma once

#include "core/context.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// What changed about a user's second factor; each has a template event:
// "mfa-enabled", "mfa-disabled", "mfa-recovery-codes", "passkey-added",
// "passkey-removed", "mfa-locked" (wrong answers locked the second factor,
// auth/mfa/guard.hpp).
enum class MfaChange { kEnabled, kDisabled, kRecoveryCodes, kPasskeyAdded, kPasskeyRemoved, kLocked };

// Queues the notice of `change` to the user (outbox, high priority) in the
// user's language (the locale column of `table`): the site's enabled
// template of that event, else a built-in one (messaging::account_template). Nothing when
// `site_id` names no active site with e-mail enabled. `site_id` 0 (a token
// issued without an appID) sends from the service itself: the built-in
// template, From [smtp] from, outbox site 0; nothing when that is unset.
void queue_mfa_mail(core::Context& ctx, const http::Request& request, long long site_id, const db::TableName& table,
                    const db::User& user, MfaChange change);

}  // namespace svc::auth
