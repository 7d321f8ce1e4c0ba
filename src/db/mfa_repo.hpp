#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

// A user's TOTP factor (svc_mfa_factors).
struct TotpFactor {
  std::string secret_sealed;  // base64url of the sealed secret
  bool confirmed = false;
  long long last_step = 0;
};

// Who an mfa_token was issued to (svc_mfa_challenges).
struct MfaChallenge {
  std::string table;
  long long user_id = 0;
  long long site_id = 0;
  std::string first_factor = "pwd";    // the amr of the step that earned it: "pwd", or "otp" (e-mail code)
  bool session_event = true;           // read only: the site has an endpoint for session.created
  std::optional<TotpFactor> factor{};  // read only: the user's TOTP factor, read with the challenge
};

// The second factor of the users of one auth table: TOTP factors, recovery
// codes and the login challenges (sql/010_mfa.sql). Every statement names
// the table and user (or the challenge's hash), so one user's rows are never
// touched through another's request.
class MfaRepo {
 public:
  explicit MfaRepo(Database& db) : db_(db) {}

  std::optional<TotpFactor> find_factor(const std::string& table, long long user_id);
  bool has_confirmed_factor(const std::string& table, long long user_id);

  // Stores a new unconfirmed secret unless the user has a confirmed factor
  // (then returns false and changes nothing). An earlier unconfirmed secret
  // is replaced.
  bool store_pending(const std::string& table, long long user_id, const std::string& sealed, long long now);

  // Accepts time step `step` for the factor whose secret is still `sealed`:
  // one UPDATE raises last_step only when it is below `step`, so of any
  // number of requests with codes of one step exactly one is accepted.
  // `confirming`: the factor must be unconfirmed and becomes confirmed at
  // `now`; else it must be confirmed.
  bool accept_step(const std::string& table, long long user_id, const std::string& sealed, long long step,
                   bool confirming, long long now);

  // Replaces the user's recovery codes with `hashes` (hex) in one
  // transaction: the old set is void.
  void replace_recovery_codes(const std::string& table, long long user_id, const std::vector<std::string>& hashes,
                              long long now);
  // Spends an unused recovery code; false when none matches. One UPDATE
  // decides, so a code is accepted once.
  bool use_recovery_code(const std::string& table, long long user_id, const std::string& hash, long long now);
  int unused_recovery_codes(const std::string& table, long long user_id);

  // Deletes the factor, its recovery codes and open challenges in one
  // transaction; true when a confirmed factor was removed. With
  // `enrolled_since` (unix seconds), only a factor created then or later
  // (and, with it, its codes and challenges). Inside the caller's
  // transaction when one is open.
  bool remove(const std::string& table, long long user_id, long long enrolled_since = 0);

  void create_challenge(const std::string& token_hash, const MfaChallenge& challenge, long long expires_at);
  // Counts one try on a live challenge (not spent, not expired at `now`,
  // fewer than max_tries used) before any code is looked at; nullopt when
  // none was left.
  std::optional<MfaChallenge> claim_try(const std::string& token_hash, long long now, int max_tries);
  // The challenge while it is live (as claim_try counts), without counting a
  // try: for the options of a passkey answer (auth/passkey/service.hpp).
  std::optional<MfaChallenge> find_live(const std::string& token_hash, long long now, int max_tries);
  // Marks the challenge used; false when a parallel request did first.
  bool spend_challenge(const std::string& token_hash);

 private:
  Database& db_;
};

}  // namespace svc::db
