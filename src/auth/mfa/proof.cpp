#include "auth/mfa/proof.hpp"

#include <string>

#include "auth/auth_common.hpp"
#include "auth/mfa/mail.hpp"
#include "core/clock.hpp"
#include "db/account_repo.hpp"
#include "db/mfa_repo.hpp"
#include "db/passkey_repo.hpp"

namespace svc::auth {

// Whoever enrolled before the first proof held a password or a session but
// not necessarily the mailbox (a sign-up with someone else's address); what
// came since the last proof may be a stolen session's. The mailbox's owner
// keeps what survived an earlier proof.
void drop_unproven_enrolments(core::Context& ctx, const http::Request& request, long long site_id,
                              const db::TableName& table, const db::User& user, const db::AddressProof& proof,
                              bool reset) {
  // Any proof: the mailbox's holder is here, and an address change asked
  // for before (perhaps by whoever held the account without the mailbox)
  // does not move the account away from them.
  const int changes = db::AccountRepo(ctx.db).cancel_pending_changes(table.str(), user.id, ctx.clock.now());
  if (changes > 0) {
    audit(ctx, request, "email_changes_cancelled", table.str(), user.id, site_id,
          "proof of the address: " + std::to_string(changes) + " change(s)");
  }
  if (!proof.recorded || (!reset && proof.previous != 0)) return;
  const long long since = proof.previous;  // 0: everything enrolled so far
  const bool factor = db::MfaRepo(ctx.db).remove(table.str(), user.id, since);
  const int passkeys = db::PasskeyRepo(ctx.db).remove_enrolled_since(table.str(), user.id, since);
  const int consents = db::AccountRepo(ctx.db).remove_consents_since(table.str(), user.id, since);
  if (!factor && passkeys == 0 && consents == 0) return;
  const std::string why = proof.previous == 0 ? "first proof of the address" : "password reset";
  audit(ctx, request, "enrolments_removed", table.str(), user.id, site_id,
        why + ": " + (factor ? "totp, " : "") + std::to_string(passkeys) + " passkey(s), " + std::to_string(consents) +
            " OAuth consent(s)");
  if (factor) queue_mfa_mail(ctx, request, site_id, table, user, MfaChange::kDisabled);
  if (passkeys > 0) queue_mfa_mail(ctx, request, site_id, table, user, MfaChange::kPasskeyRemoved);
}

}  // namespace svc::auth
