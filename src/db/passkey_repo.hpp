#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

// A site's WebAuthn relying party (svc_site_passkey_rp).
struct RelyingParty {
  std::string rp_id;
  std::vector<std::string> origins;
};

// One registered credential (svc_passkeys). Binary values are base64url.
struct Passkey {
  long long id = 0;
  long long site_id = 0;
  std::string table;
  long long user_id = 0;
  std::string credential_id;
  std::string public_key;  // COSE_Key
  int alg = 0;
  std::string user_handle;
  long long sign_count = 0;
  bool backup_eligible = false;
  bool backed_up = false;
  std::string aaguid;  // hex
  std::string attestation_fmt;
  std::string transports;  // space-separated
  std::string name;
  long long created_at = 0;
  long long last_used_at = 0;  // 0 = never
};

// An open ceremony (svc_passkey_challenges); see sql/012_passkeys.sql.
struct PasskeyChallenge {
  long long site_id = 0;
  std::string kind;       // "register", "login", "mfa"
  std::string challenge;  // base64url
  std::string table;
  long long user_id = 0;
  bool bound = false;  // the answer must come from this user's credential
  bool uv_required = true;
  std::string user_handle;     // register: the user.id the options gave
  std::string mfa_token_hash;  // mfa: the mfa_token it answers
};

// Passkeys and their ceremonies (sql/012_passkeys.sql). Every statement on
// credentials names the site and, except the sign-in lookup by credential
// id, the user's table and id.
class PasskeyRepo {
 public:
  explicit PasskeyRepo(Database& db) : db_(db) {}

  std::optional<RelyingParty> find_rp(long long site_id);
  // svc-admin site set --rp-id/--origins; an empty rp_id removes the row.
  void set_rp(long long site_id, const std::string& rp_id, const std::vector<std::string>& origins);

  void create_challenge(const std::string& token_hash, const PasskeyChallenge& challenge, long long expires_at);
  // Spends the challenge (one UPDATE: unspent and not expired at `now`)
  // and returns it; nullopt when it was unknown, spent or expired. A
  // challenge is spent before its answer is looked at, so it is never
  // answered twice, whatever the outcome.
  std::optional<PasskeyChallenge> claim_challenge(const std::string& token_hash, long long now);

  std::vector<Passkey> list(long long site_id, const std::string& table, long long user_id);
  std::optional<Passkey> find_by_credential(long long site_id, const std::string& credential_hash);
  // The user.id of the user's credentials on the site; "" when none.
  std::string user_handle(long long site_id, const std::string& table, long long user_id);
  bool has_passkey(long long site_id, const std::string& table, long long user_id);

  // Stores a new credential and returns its id; nullopt when the site
  // already has one with this credential id (nothing written).
  std::optional<long long> insert(const Passkey& passkey, const std::string& credential_hash);
  // Records a sign-in with counter `fresh`: one UPDATE that raises the
  // stored counter (or, when the authenticator keeps none, fresh == 0,
  // finds it still 0), so of two sign-ins with one counter value only one
  // passes. False when the stored counter was not below `fresh`.
  bool record_use(long long id, long long fresh, bool backed_up, long long now);
  // Names one of the user's credentials `name` and returns it as stored;
  // nullopt when the user has none with this id on the site (nothing
  // written).
  std::optional<Passkey> rename(long long site_id, const std::string& table, long long user_id, long long id,
                                const std::string& name);
  // Deletes one of the user's credentials; false when the user has none
  // with this id on the site.
  bool remove(long long site_id, const std::string& table, long long user_id, long long id);
  // Deletes the user's credentials of every site created at `since` (unix
  // seconds) or later; returns how many.
  int remove_enrolled_since(const std::string& table, long long user_id, long long since);

 private:
  Database& db_;
};

}  // namespace svc::db
