#pragma once
// svc_signing_keys (sql/008_signing_keys.sql): the access-token signing keys
// shared by every app host. The keys are the service's own, not a site's,
// so these statements have no site scope. Times are unix seconds.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

struct SigningKeyRow {
  std::string kid;
  std::string alg;                 // "ES256" | "EdDSA" | "RS256"
  std::string public_key;          // base64url raw public key
  std::string private_key_sealed;  // base64url crypto::seal_private_key output
  long long created_at = 0;
  long long activate_at = 0;
  std::optional<long long> retire_at;  // nullopt = not scheduled
};

class SigningKeyRepo {
 public:
  explicit SigningKeyRepo(Database& db) : db_(db) {}
  // Every key not retired at `now` (retire_at NULL or > now), newest
  // activate_at first (ties: newest row first): what workers load.
  std::vector<SigningKeyRow> published(long long now);
  // Every key, retired ones too, oldest first (svc-admin signing-keys list).
  std::vector<SigningKeyRow> all();
  std::optional<SigningKeyRow> find(const std::string& kid);
  void insert(const SigningKeyRow& row);
  // Sets retire_at of `kid`; false when no such key.
  bool set_retire_at(const std::string& kid, long long retire_at);
  // Inserts `row` only when the table holds no key at all, in one statement
  // (two hosts running migrate at once make one key). True when inserted.
  bool insert_if_empty(const SigningKeyRow& row);
  // The same when the table holds no key of row.alg (the first RS256 key).
  bool insert_if_alg_absent(const SigningKeyRow& row);

 private:
  Database& db_;
};

}  // namespace svc::db
