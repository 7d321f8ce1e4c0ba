#pragma once

#include "core/context.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"

namespace svc::auth {

// What a proof of the address does to what was enrolled without one
// (docs/decisions.md "Issue 36: pre-hijacking"); `proof` is what
// UserRepo::prove_address answered for it. The first proof (a verification
// link, an e-mail code, a password reset) removes the user's second factor
// and passkeys (every site's) enrolled before it; a password reset
// (`reset`) removes those enrolled since the previous proof. Each removal is
// audited and mailed to the owner (mfa-disabled, passkey-removed) from
// `site_id`. OAuth consents given in the same span go with them (audited,
// not mailed). Every proof, in any table, also cancels the user's pending
// e-mail changes (db::AccountRepo::cancel_pending_changes). Nothing else in
// a table that does not record proofs.
// REQUIRES: no transaction open.
void drop_unproven_enrolments(core::Context& ctx, const http::Request& request, long long site_id,
                              const db::TableName& table, const db::User& user, const db::AddressProof& proof,
                              bool reset);

}  // namespace svc::auth
