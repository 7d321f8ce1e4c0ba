#include "db/passkey_repo.hpp"

#include <sodium.h>

#include "core/text.hpp"

namespace svc::db {
namespace {

constexpr const char* kPasskeyColumns =
    "id, site_id, auth_table, user_id, credential_id, public_key, alg, user_handle, sign_count, backup_eligible,"
    " backed_up, aaguid, attestation_fmt, transports, name, created_at, last_used_at";

// In the order of kPasskeyColumns.
constexpr auto read_passkey =
    read_fields<Passkey, &Passkey::id, &Passkey::site_id, &Passkey::table, &Passkey::user_id, &Passkey::credential_id,
                &Passkey::public_key, &Passkey::alg, &Passkey::user_handle, &Passkey::sign_count,
                &Passkey::backup_eligible, &Passkey::backed_up, &Passkey::aaguid, &Passkey::attestation_fmt,
                &Passkey::transports, &Passkey::name, &Passkey::created_at, &Passkey::last_used_at>;

}  // namespace

std::optional<RelyingParty> PasskeyRepo::find_rp(long long site_id) {
  return db_.one(
      "SELECT rp_id, origins FROM svc_site_passkey_rp WHERE site_id = ?", [&](Params& p) { p.integer(site_id); },
      [](RowReader& r) {
        RelyingParty rp;
        rp.rp_id = r.text();
        const std::string origins = r.text();  // space-separated
        for (std::string_view o : core::split_words(origins)) rp.origins.emplace_back(o);
        return rp;
      });
}

void PasskeyRepo::set_rp(long long site_id, const std::string& rp_id, const std::vector<std::string>& origins) {
  if (rp_id.empty()) {
    db_.execute_idempotent("DELETE FROM svc_site_passkey_rp WHERE site_id = ?", [&](Params& p) { p.integer(site_id); });
    return;
  }
  db_.execute_idempotent(
      "INSERT INTO svc_site_passkey_rp (site_id, rp_id, origins) VALUES (?, ?, ?)"
      " ON DUPLICATE KEY UPDATE rp_id = VALUES(rp_id), origins = VALUES(origins)",
      [&](Params& p) { p.integer(site_id).text(rp_id).text(core::join(origins, " ")); });
}

void PasskeyRepo::create_challenge(const std::string& token_hash, const PasskeyChallenge& c, long long expires_at) {
  db_.execute_idempotent(
      "INSERT IGNORE INTO svc_passkey_challenges (token_hash, site_id, kind, challenge, auth_table, user_id, bound,"
      " uv_required, user_handle, mfa_token_hash, expires_at, spent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
      [&](Params& p) {
        p.text(token_hash).integer(c.site_id).text(c.kind).text(c.challenge).text(c.table).integer(c.user_id);
        p.flag(c.bound).flag(c.uv_required).text(c.user_handle).text(c.mfa_token_hash).integer(expires_at);
      });
  // Now and then, forget ceremonies that ended, so the table stays small.
  if (randombytes_uniform(100) == 0) {
    db_.execute_idempotent("DELETE FROM svc_passkey_challenges WHERE expires_at < ? LIMIT 1000",
                           [&](Params& p) { p.integer(expires_at - 3600); });
  }
}

std::optional<PasskeyChallenge> PasskeyRepo::claim_challenge(const std::string& token_hash, long long now) {
  const int spent =
      db_.execute("UPDATE svc_passkey_challenges SET spent = 1 WHERE token_hash = ? AND spent = 0 AND expires_at > ?",
                  [&](Params& p) { p.text(token_hash).integer(now); });
  if (spent != 1) return std::nullopt;
  return db_.one(
      "SELECT site_id, kind, challenge, auth_table, user_id, bound, uv_required, user_handle, mfa_token_hash"
      " FROM svc_passkey_challenges WHERE token_hash = ?",
      [&](Params& p) { p.text(token_hash); },
      [](RowReader& r) {
        PasskeyChallenge c;
        r.read(c.site_id, c.kind, c.challenge, c.table, c.user_id, c.bound, c.uv_required, c.user_handle,
               c.mfa_token_hash);
        return c;
      });
}

std::vector<Passkey> PasskeyRepo::list(long long site_id, const std::string& table, long long user_id) {
  return db_.rows(
      std::string("SELECT ") + kPasskeyColumns +
          " FROM svc_passkeys WHERE site_id = ? AND auth_table = ? AND user_id = ? ORDER BY id",
      [&](Params& p) { p.integer(site_id).text(table).integer(user_id); }, read_passkey);
}

std::optional<Passkey> PasskeyRepo::find_by_credential(long long site_id, const std::string& credential_hash) {
  return db_.one(
      std::string("SELECT ") + kPasskeyColumns + " FROM svc_passkeys WHERE site_id = ? AND credential_hash = ?",
      [&](Params& p) { p.integer(site_id).text(credential_hash); }, read_passkey);
}

std::string PasskeyRepo::user_handle(long long site_id, const std::string& table, long long user_id) {
  auto handle = db_.one(
      "SELECT user_handle FROM svc_passkeys WHERE site_id = ? AND auth_table = ? AND user_id = ? ORDER BY id LIMIT 1",
      [&](Params& p) { p.integer(site_id).text(table).integer(user_id); }, [](RowReader& r) { return r.text(); });
  return handle.value_or("");
}

bool PasskeyRepo::has_passkey(long long site_id, const std::string& table, long long user_id) {
  return !user_handle(site_id, table, user_id).empty();
}

std::optional<long long> PasskeyRepo::insert(const Passkey& k, const std::string& credential_hash) {
  const int inserted = db_.execute(
      "INSERT IGNORE INTO svc_passkeys (site_id, auth_table, user_id, credential_hash, credential_id,"
      " public_key, alg, user_handle, sign_count, backup_eligible, backed_up, aaguid, attestation_fmt,"
      " transports, name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [&](Params& p) {
        p.integer(k.site_id).text(k.table).integer(k.user_id).text(credential_hash).text(k.credential_id);
        p.text(k.public_key).integer(k.alg).text(k.user_handle).integer(k.sign_count);
        p.flag(k.backup_eligible).flag(k.backed_up).text(k.aaguid).text(k.attestation_fmt);
        p.text(k.transports).text(k.name).integer(k.created_at);
      });
  if (inserted != 1) return std::nullopt;
  return db_.last_insert_id();
}

bool PasskeyRepo::record_use(long long id, long long fresh, bool backed_up, long long now) {
  // A counter of 0 on both sides: the authenticator keeps none, so nothing
  // can be compared; the row is only touched (and found even when no value
  // changes, hence the IS NOT NULL test instead of an affected-row count).
  if (fresh == 0) {
    db_.execute("UPDATE svc_passkeys SET backed_up = ?, last_used_at = ? WHERE id = ? AND sign_count = 0",
                [&](Params& p) { p.flag(backed_up).integer(now).integer(id); });
    return db_
        .one(
            "SELECT id FROM svc_passkeys WHERE id = ? AND sign_count = 0", [&](Params& p) { p.integer(id); },
            [](RowReader& r) { return r.integer(); })
        .has_value();
  }
  return db_.execute(
             "UPDATE svc_passkeys SET sign_count = ?, backed_up = ?, last_used_at = ? WHERE id = ? AND sign_count < ?",
             [&](Params& p) { p.integer(fresh).flag(backed_up).integer(now).integer(id).integer(fresh); }) == 1;
}

std::optional<Passkey> PasskeyRepo::rename(long long site_id, const std::string& table, long long user_id, long long id,
                                           const std::string& name) {
  // The affected-row count cannot say whether the row exists (a name left
  // as it was changes no row), so the row is read back by the same keys.
  // Setting a name twice sets it once: safe to repeat.
  db_.execute_idempotent(
      "UPDATE svc_passkeys SET name = ? WHERE id = ? AND site_id = ? AND auth_table = ? AND user_id = ?",
      [&](Params& p) { p.text(name).integer(id).integer(site_id).text(table).integer(user_id); });
  return db_.one(
      std::string("SELECT ") + kPasskeyColumns +
          " FROM svc_passkeys WHERE id = ? AND site_id = ? AND auth_table = ? AND user_id = ?",
      [&](Params& p) { p.integer(id).integer(site_id).text(table).integer(user_id); }, read_passkey);
}

bool PasskeyRepo::remove(long long site_id, const std::string& table, long long user_id, long long id) {
  return db_.execute("DELETE FROM svc_passkeys WHERE id = ? AND site_id = ? AND auth_table = ? AND user_id = ?",
                     [&](Params& p) { p.integer(id).integer(site_id).text(table).integer(user_id); }) == 1;
}

int PasskeyRepo::remove_enrolled_since(const std::string& table, long long user_id, long long since) {
  return db_.execute("DELETE FROM svc_passkeys WHERE auth_table = ? AND user_id = ? AND created_at >= ?",
                     [&](Params& p) { p.text(table).integer(user_id).integer(since); });
}

}  // namespace svc::db
