#include "auth/tokens/signing_keys.hpp"

#include <sodium.h>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "crypto/encoding.hpp"

namespace svc::auth {
namespace {

// The key `reuse` already parsed for this row, if any: same kid, alg and
// public half, and a private half when the row is to sign.
const crypto::SigningKey* reusable(const KeySet* reuse, const db::SigningKeyRow& row, crypto::SigningAlg alg,
                                   std::string_view public_raw, bool signs) {
  if (!reuse) return nullptr;
  auto same = [&](const crypto::SigningKey& k) {
    return k.kid() == row.kid && k.alg() == alg && k.public_raw() == public_raw;
  };
  if (signs) {
    const crypto::SigningKey* held = reuse->current(alg);
    return held && same(*held) ? held : nullptr;
  }
  for (const crypto::SigningKey& k : reuse->published) {
    if (same(k)) return &k;
  }
  return nullptr;
}

crypto::SigningKey load_signer(const db::SigningKeyRow& row, crypto::SigningAlg alg, std::string_view public_raw,
                               const std::string& kek) {
  auto sealed = crypto::base64url_decode(row.private_key_sealed);
  std::optional<std::string> private_raw = sealed ? crypto::open_private_key(*sealed, kek, row.kid) : std::nullopt;
  if (!private_raw) {
    throw KeySetError("signing key " + row.kid + ": [keys] signing_kek does not open its private half");
  }
  auto key = crypto::SigningKey::load_pair(row.kid, alg, *private_raw, public_raw);
  sodium_memzero(private_raw->data(), private_raw->size());
  if (!key) throw KeySetError("signing key " + row.kid + ": the stored halves are not a valid matching pair");
  return *key;
}

void append_jwk(std::string& jwks, const crypto::SigningKey& key) {
  if (jwks.size() > 9) jwks.push_back(',');
  jwks += key.jwk();
}

}  // namespace

KeySet build_key_set(const std::vector<db::SigningKeyRow>& rows, long long now, const std::string& kek,
                     const KeySet* reuse) {
  KeySet set;
  set.jwks = "{\"keys\":[";
  for (const db::SigningKeyRow& row : rows) {
    const auto alg = crypto::parse_alg(row.alg);
    const auto public_raw = crypto::base64url_decode(row.public_key);
    if (!alg || !public_raw) throw KeySetError("signing key " + row.kid + ": unknown alg or bad public key");
    auto& newest = set.newest[static_cast<size_t>(*alg)];
    const bool signs = !newest && row.activate_at <= now;
    std::optional<crypto::SigningKey> key;
    if (const crypto::SigningKey* old = reusable(reuse, row, *alg, *public_raw, signs)) {
      key = *old;
    } else if (signs) {
      key = load_signer(row, *alg, *public_raw, kek);
    } else {
      key = crypto::SigningKey::load_public(row.kid, *alg, *public_raw);
      if (!key) throw KeySetError("signing key " + row.kid + ": the stored public key is not valid");
    }
    if (signs) {
      newest = key;
      if (!set.signer && *alg != crypto::SigningAlg::kRS256) set.signer = key;
    }
    set.published.push_back(*key);
    append_jwk(set.jwks, *key);
  }
  set.jwks += "]}";
  return set;
}

std::shared_ptr<const KeySet> SigningKeyCache::get(long long now, const std::string& kek, db::SigningKeyRepo& repo) {
  if (set_ && ttl_ > 0 && loaded_at_ <= now && now < loaded_at_ + ttl_) return set_;
  set_ = std::make_shared<const KeySet>(build_key_set(repo.published(now), now, kek, set_.get()));
  loaded_at_ = now;
  return set_;
}

std::shared_ptr<const KeySet> current_key_set(core::Context& ctx) {
  db::SigningKeyRepo repo(ctx.db);
  const long long now = ctx.clock.now();
  if (ctx.signing_keys) return ctx.signing_keys->get(now, ctx.config.keys.signing_kek, repo);
  return std::make_shared<const KeySet>(build_key_set(repo.published(now), now, ctx.config.keys.signing_kek, nullptr));
}

}  // namespace svc::auth
