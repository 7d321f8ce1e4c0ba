#pragma once
// The access-token key set of a worker: the keys of svc_signing_keys, parsed
// (crypto::SigningKey) and reused for [tokens] key_cache_seconds, so a
// request never parses a key and a rotation reaches every worker of every
// app host within that bound.
//
// From the rows published at `now` (retire_at NULL or later), newest
// activate_at first:
//   - signer: the first ES256/EdDSA row with activate_at <= now, its private
//     half opened with [keys] signing_kek: it signs access tokens;
//   - current(alg): the first row of each algorithm with activate_at <= now,
//     private half opened: the key an OpenID Connect ID token of that
//     algorithm is signed with (issue 39: RS256 by default, ES256 or EdDSA
//     per client); an RS256 key never signs an access token;
//   - published: every row, the JWKS and what svc verifies access tokens with
//     (an RS256 key never verifies one: its tokens are typed "JWT").
// A key whose activate_at is still ahead is published but does not sign yet.
//
// Not thread-safe: one SigningKeyCache per worker process, made after fork.
// A set is kept while loaded <= now < loaded + ttl, so a clock stepped back
// never stretches it. Keys already parsed are reused across reloads while
// their row is unchanged.

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "crypto/signing_key.hpp"
#include "db/signing_key_repo.hpp"

namespace svc::auth {

struct KeySet {
  std::vector<crypto::SigningKey> published;
  std::optional<crypto::SigningKey> signer;  // nullopt: no active key (tokens cannot be issued)
  // The newest active key of each algorithm (by crypto::SigningAlg), each able to sign.
  std::array<std::optional<crypto::SigningKey>, crypto::kSigningAlgs> newest;
  std::string jwks;  // {"keys":[jwk, …]} of `published`, in that order

  // The key an ID token of `alg` is signed with; nullptr when none is active.
  const crypto::SigningKey* current(crypto::SigningAlg alg) const {
    const auto& key = newest[static_cast<size_t>(alg)];
    return key ? &*key : nullptr;
  }
};

// Thrown when a row cannot be used (unknown alg, bad base64url, a sealed
// half the kek does not open, a pair that does not match): a deployment
// error, answered 500 and logged by the dispatcher; the message names the
// kid, never key bytes.
struct KeySetError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SigningKeyCache {
 public:
  // ttl_seconds <= 0: the set is read for every request.
  explicit SigningKeyCache(long long ttl_seconds) : ttl_(ttl_seconds) {}
  // The set as of `now`, reloaded through `load` when stale.
  std::shared_ptr<const KeySet> get(long long now, const std::string& kek, db::SigningKeyRepo& repo);

 private:
  long long ttl_;
  long long loaded_at_ = 0;
  std::shared_ptr<const KeySet> set_;
};

// Builds the set of `rows` (newest activate_at first) at `now`; keys of
// `reuse` with the same kid, alg and public key (and, for the signer, a
// private half) are taken as they are instead of being parsed again.
KeySet build_key_set(const std::vector<db::SigningKeyRow>& rows, long long now, const std::string& kek,
                     const KeySet* reuse);

// The key set through ctx.signing_keys when there is one, else read now.
std::shared_ptr<const KeySet> current_key_set(core::Context& ctx);

}  // namespace svc::auth
