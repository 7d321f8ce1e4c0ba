#include "db/signing_key_repo.hpp"

namespace svc::db {
namespace {

constexpr const char* kColumns = "kid, alg, public_key, private_key_sealed, created_at, activate_at, retire_at";

// In the order of kColumns; a NULL retire_at reads as nullopt.
constexpr auto read_key =
    read_fields<SigningKeyRow, &SigningKeyRow::kid, &SigningKeyRow::alg, &SigningKeyRow::public_key,
                &SigningKeyRow::private_key_sealed, &SigningKeyRow::created_at, &SigningKeyRow::activate_at,
                &SigningKeyRow::retire_at>;

void bind_key(Params& p, const SigningKeyRow& k) {
  p.text(k.kid).text(k.alg).text(k.public_key).text(k.private_key_sealed).integer(k.created_at);
  p.integer(k.activate_at);
  if (k.retire_at) {
    p.integer(*k.retire_at);
  } else {
    p.null();
  }
}

}  // namespace

std::vector<SigningKeyRow> SigningKeyRepo::published(long long now) {
  return db_.rows(
      std::string("SELECT ") + kColumns +
          " FROM svc_signing_keys WHERE retire_at IS NULL OR retire_at > ? ORDER BY activate_at DESC, id DESC",
      [&](Params& p) { p.integer(now); }, read_key);
}

std::vector<SigningKeyRow> SigningKeyRepo::all() {
  return db_.rows(std::string("SELECT ") + kColumns + " FROM svc_signing_keys ORDER BY id", kNoParams, read_key);
}

std::optional<SigningKeyRow> SigningKeyRepo::find(const std::string& kid) {
  return db_.one(
      std::string("SELECT ") + kColumns + " FROM svc_signing_keys WHERE kid = ?", [&](Params& p) { p.text(kid); },
      read_key);
}

void SigningKeyRepo::insert(const SigningKeyRow& row) {
  db_.execute(
      "INSERT INTO svc_signing_keys (kid, alg, public_key, private_key_sealed, created_at, activate_at, retire_at)"
      " VALUES (?, ?, ?, ?, ?, ?, ?)",
      [&](Params& p) { bind_key(p, row); });
}

bool SigningKeyRepo::set_retire_at(const std::string& kid, long long retire_at) {
  // A row whose retire_at already equals the value counts too (found rows).
  if (!find(kid)) return false;
  db_.execute("UPDATE svc_signing_keys SET retire_at = ? WHERE kid = ?",
              [&](Params& p) { p.integer(retire_at).text(kid); });
  return true;
}

bool SigningKeyRepo::insert_if_empty(const SigningKeyRow& row) {
  return db_.execute(
             "INSERT INTO svc_signing_keys (kid, alg, public_key, private_key_sealed, created_at, activate_at,"
             " retire_at) SELECT ?, ?, ?, ?, ?, ?, ? FROM DUAL"
             " WHERE NOT EXISTS (SELECT 1 FROM svc_signing_keys)",
             [&](Params& p) { bind_key(p, row); }) > 0;
}

bool SigningKeyRepo::insert_if_alg_absent(const SigningKeyRow& row) {
  return db_.execute(
             "INSERT INTO svc_signing_keys (kid, alg, public_key, private_key_sealed, created_at, activate_at,"
             " retire_at) SELECT ?, ?, ?, ?, ?, ?, ? FROM DUAL"
             " WHERE NOT EXISTS (SELECT 1 FROM svc_signing_keys WHERE alg = ?)",
             [&](Params& p) {
               bind_key(p, row);
               p.text(row.alg);
             }) > 0;
}

}  // namespace svc::db
