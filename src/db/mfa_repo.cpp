#include "db/mfa_repo.hpp"

#include <sodium.h>

#include "db/transaction.hpp"
#include "db/webhook_repo.hpp"

namespace svc::db {
namespace {

// A TOTP factor's columns, in the order read_factor reads them.
constexpr const char* kFactorColumns = "secret_sealed, confirmed_at IS NOT NULL, last_step";

TotpFactor read_factor(RowReader& r) {
  TotpFactor f;
  r.read(f.secret_sealed, f.confirmed, f.last_step);
  return f;
}

// A challenge (alias c) with whether its site has an endpoint for
// session.created, the event the sign-in it finishes queues (binds that
// type), and its user's TOTP factor, which a code answering it is checked
// against: one statement, not a second for the factor.
const std::string& challenge_columns() {
  static const std::string sql = "SELECT c.auth_table, c.user_id, c.site_id, c.first_factor, " +
                                 has_subscriber("c.site_id") + ", " + qualified_columns(kFactorColumns, "f") +
                                 " FROM svc_mfa_challenges c LEFT JOIN svc_mfa_factors f"
                                 " ON f.auth_table = c.auth_table AND f.user_id = c.user_id";
  return sql;
}

// In the order of challenge_columns().
MfaChallenge read_challenge(RowReader& r) {
  MfaChallenge c;
  r.read(c.table, c.user_id, c.site_id, c.first_factor, c.session_event);
  const bool has_factor = !r.null_next();  // secret_sealed is NOT NULL in a factor's row
  TotpFactor f = read_factor(r);
  if (has_factor) c.factor = std::move(f);
  return c;
}

}  // namespace

std::optional<TotpFactor> MfaRepo::find_factor(const std::string& table, long long user_id) {
  return db_.one(
      std::string("SELECT ") + kFactorColumns + " FROM svc_mfa_factors WHERE auth_table = ? AND user_id = ?",
      [&](Params& p) { p.text(table).integer(user_id); }, read_factor);
}

bool MfaRepo::has_confirmed_factor(const std::string& table, long long user_id) {
  auto factor = find_factor(table, user_id);
  return factor && factor->confirmed;
}

bool MfaRepo::store_pending(const std::string& table, long long user_id, const std::string& sealed, long long now) {
  // A confirmed factor keeps every column: the IFs test confirmed_at, which
  // no assignment changes. Idempotent: a re-run writes the same values.
  db_.execute_idempotent(
      "INSERT INTO svc_mfa_factors (auth_table, user_id, secret_sealed, created_at, confirmed_at, last_step)"
      " VALUES (?, ?, ?, ?, NULL, 0) ON DUPLICATE KEY UPDATE"
      " secret_sealed = IF(confirmed_at IS NULL, VALUES(secret_sealed), secret_sealed),"
      " created_at = IF(confirmed_at IS NULL, VALUES(created_at), created_at),"
      " last_step = IF(confirmed_at IS NULL, 0, last_step)",
      [&](Params& p) { p.text(table).integer(user_id).text(sealed).integer(now); });
  auto stored = find_factor(table, user_id);
  return stored && !stored->confirmed && stored->secret_sealed == sealed;
}

bool MfaRepo::accept_step(const std::string& table, long long user_id, const std::string& sealed, long long step,
                          bool confirming, long long now) {
  return db_.execute(
             "UPDATE svc_mfa_factors SET last_step = ?,"
             " confirmed_at = IF(confirmed_at IS NULL, ?, confirmed_at)"
             " WHERE auth_table = ? AND user_id = ? AND secret_sealed = ? AND last_step < ?"
             " AND (confirmed_at IS NULL) = ?",
             [&](Params& p) {
               p.integer(step).integer(now).text(table).integer(user_id).text(sealed).integer(step).flag(confirming);
             }) == 1;
}

void MfaRepo::replace_recovery_codes(const std::string& table, long long user_id,
                                     const std::vector<std::string>& hashes, long long now) {
  with_transaction_retry(db_, [&] {
    Transaction tx(db_);
    db_.execute("DELETE FROM svc_mfa_recovery_codes WHERE auth_table = ? AND user_id = ?",
                [&](Params& p) { p.text(table).integer(user_id); });
    for (const auto& hash : hashes) {
      db_.execute(
          "INSERT INTO svc_mfa_recovery_codes (auth_table, user_id, code_hash, created_at, used_at)"
          " VALUES (?, ?, ?, ?, NULL)",
          [&](Params& p) { p.text(table).integer(user_id).text(hash).integer(now); });
    }
    tx.commit();
  });
}

bool MfaRepo::use_recovery_code(const std::string& table, long long user_id, const std::string& hash, long long now) {
  return db_.execute(
             "UPDATE svc_mfa_recovery_codes SET used_at = ?"
             " WHERE auth_table = ? AND user_id = ? AND code_hash = ? AND used_at IS NULL",
             [&](Params& p) { p.integer(now).text(table).integer(user_id).text(hash); }) == 1;
}

int MfaRepo::unused_recovery_codes(const std::string& table, long long user_id) {
  auto n = db_.one(
      "SELECT COUNT(*) FROM svc_mfa_recovery_codes WHERE auth_table = ? AND user_id = ? AND used_at IS NULL",
      [&](Params& p) { p.text(table).integer(user_id); }, [](RowReader& r) { return r.integer(); });
  return static_cast<int>(n.value_or(0));
}

bool MfaRepo::remove(const std::string& table, long long user_id, long long enrolled_since) {
  auto body = [&] {
    const int removed = db_.execute(
        "DELETE FROM svc_mfa_factors WHERE auth_table = ? AND user_id = ? AND created_at >= ?"
        " AND confirmed_at IS NOT NULL",
        [&](Params& p) { p.text(table).integer(user_id).integer(enrolled_since); });
    const int pending =
        db_.execute("DELETE FROM svc_mfa_factors WHERE auth_table = ? AND user_id = ? AND created_at >= ?",
                    [&](Params& p) { p.text(table).integer(user_id).integer(enrolled_since); });
    if (enrolled_since > 0 && removed + pending == 0) return false;  // an older factor stays, with its codes
    db_.execute("DELETE FROM svc_mfa_recovery_codes WHERE auth_table = ? AND user_id = ?",
                [&](Params& p) { p.text(table).integer(user_id); });
    db_.execute("DELETE FROM svc_mfa_challenges WHERE auth_table = ? AND user_id = ?",
                [&](Params& p) { p.text(table).integer(user_id); });
    return removed == 1;
  };
  if (db_.in_transaction()) return body();  // the caller's transaction commits it
  return with_transaction_retry(db_, [&] {
    Transaction tx(db_);
    const bool removed = body();
    tx.commit();
    return removed;
  });
}

void MfaRepo::create_challenge(const std::string& token_hash, const MfaChallenge& challenge, long long expires_at) {
  db_.execute_idempotent(
      "INSERT IGNORE INTO svc_mfa_challenges (token_hash, auth_table, user_id, site_id, expires_at, attempts, spent,"
      " first_factor) VALUES (?, ?, ?, ?, ?, 0, 0, ?)",
      [&](Params& p) {
        p.text(token_hash).text(challenge.table).integer(challenge.user_id).integer(challenge.site_id);
        p.integer(expires_at).text(challenge.first_factor);
      });
  // Now and then, forget challenges that ended, so the table stays small.
  if (randombytes_uniform(100) == 0) {
    db_.execute_idempotent("DELETE FROM svc_mfa_challenges WHERE expires_at < ? LIMIT 1000",
                           [&](Params& p) { p.integer(expires_at - 3600); });
  }
}

std::optional<MfaChallenge> MfaRepo::claim_try(const std::string& token_hash, long long now, int max_tries) {
  const int counted = db_.execute(
      "UPDATE svc_mfa_challenges SET attempts = attempts + 1"
      " WHERE token_hash = ? AND spent = 0 AND attempts < ? AND expires_at > ?",
      [&](Params& p) { p.text(token_hash).integer(max_tries).integer(now); });
  if (counted != 1) return std::nullopt;
  return db_.one(
      challenge_columns() + " WHERE c.token_hash = ?", [&](Params& p) { p.text("session.created").text(token_hash); },
      read_challenge);
}

std::optional<MfaChallenge> MfaRepo::find_live(const std::string& token_hash, long long now, int max_tries) {
  return db_.one(
      challenge_columns() + " WHERE c.token_hash = ? AND c.spent = 0 AND c.attempts < ? AND c.expires_at > ?",
      [&](Params& p) { p.text("session.created").text(token_hash).integer(max_tries).integer(now); }, read_challenge);
}

bool MfaRepo::spend_challenge(const std::string& token_hash) {
  return db_.execute("UPDATE svc_mfa_challenges SET spent = 1 WHERE token_hash = ? AND spent = 0",
                     [&](Params& p) { p.text(token_hash); }) == 1;
}

}  // namespace svc::db
