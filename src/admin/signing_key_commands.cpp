#include "admin/signing_key_commands.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/signing_key.hpp"
#include "db/signing_key_repo.hpp"

namespace svc::admin {
namespace {

// What a backend may cache the JWKS for (Cache-Control of
// GET /.well-known/jwks.json, auth/tokens/jwks.cpp).
constexpr long long kJwksMaxAge = 300;

long long now() { return static_cast<long long>(std::time(nullptr)); }

std::string format_time(long long t) { return readable_time(t); }

void require_kek(const config::Config& config) {
  if (config.keys.signing_kek.empty()) {
    throw UsageError("[keys] signing_kek is not set (svc-admin keygen prints one): it seals the signing keys");
  }
}

// A fresh key of `alg`, its private half sealed; kid "<alg>-<12 hex>".
db::SigningKeyRow new_key(const config::Config& config, crypto::SigningAlg alg, long long activate_at) {
  require_kek(config);
  crypto::SigningKeyMaterial m = crypto::generate_signing_key(alg);
  db::SigningKeyRow row;
  row.alg = std::string(crypto::alg_name(alg));
  row.kid = core::ascii_lower(crypto::alg_name(alg)) + "-" + crypto::hex_encode(crypto::random_bytes(6));
  row.public_key = crypto::base64url_encode(m.public_key);
  row.private_key_sealed =
      crypto::base64url_encode(crypto::seal_private_key(m.private_key, config.keys.signing_kek, row.kid));
  sodium_memzero(m.private_key.data(), m.private_key.size());
  row.created_at = now();
  row.activate_at = activate_at;
  return row;
}

crypto::SigningAlg alg_option(const Args& args, const config::Config& config) {
  const std::string name =
      args.get("alg").value_or(config.tokens.legacy_hs256() ? std::string("ES256") : config.tokens.access_alg);
  auto alg = crypto::parse_alg(name);
  if (!alg) throw UsageError("--alg expects ES256, EdDSA or RS256, got '" + name + "'");
  return *alg;
}

// RS256 keys sign ID tokens, the others access tokens: two signers, each
// chosen among the keys of its family (auth/tokens/signing_keys.hpp).
bool signs_id_tokens(const std::string& alg) { return alg == "RS256"; }

// The kid that signs at `t` among the keys of `family_of`'s family: the
// newest activate_at <= t among keys not retired at t (ties: the newest
// row), as workers pick it.
std::string signer_at(const std::vector<db::SigningKeyRow>& keys, long long t, const std::string& family_of) {
  const db::SigningKeyRow* best = nullptr;
  for (const auto& k : keys) {  // oldest row first, so >= keeps the newest of a tie
    if (signs_id_tokens(k.alg) != signs_id_tokens(family_of)) continue;
    if (k.activate_at <= t && (!k.retire_at || *k.retire_at > t) && (!best || k.activate_at >= best->activate_at)) {
      best = &k;
    }
  }
  return best ? best->kid : "";
}

}  // namespace

std::string ensure_signing_key(const config::Config& config, db::Database& db) {
  if (config.tokens.legacy_hs256()) return "";
  auto alg = crypto::parse_alg(config.tokens.access_alg);
  db::SigningKeyRow row = new_key(config, alg.value_or(crypto::SigningAlg::kES256), now());
  return db::SigningKeyRepo(db).insert_if_empty(row) ? row.kid : "";
}

std::string ensure_id_token_key(const config::Config& config, db::Database& db) {
  if (config.keys.signing_kek.empty()) return "";
  db::SigningKeyRow row = new_key(config, crypto::SigningAlg::kRS256, now());
  return db::SigningKeyRepo(db).insert_if_alg_absent(row) ? row.kid : "";
}

int cmd_signing_keys_list(const Args& args, const std::string& config_path) {
  args.allow_only({});
  CommandEnv env(config_path);
  const auto keys = db::SigningKeyRepo(env.db).all();
  const long long t = now();
  const std::string signer = signer_at(keys, t, "ES256");
  const std::string id_signer = signer_at(keys, t, "RS256");
  std::printf("%-20s %-6s %-10s %-21s %-21s %s\n", "kid", "alg", "state", "activate_at", "retire_at", "created_at");
  for (const auto& k : keys) {
    const char* state = k.retire_at && *k.retire_at <= t        ? "retired"
                        : k.kid == signer || k.kid == id_signer ? "signing"
                        : k.activate_at > t                     ? "pending"
                                                                : "verifying";
    std::printf("%-20s %-6s %-10s %-21s %-21s %s\n", k.kid.c_str(), k.alg.c_str(), state,
                format_time(k.activate_at).c_str(), k.retire_at ? format_time(*k.retire_at).c_str() : "-",
                format_time(k.created_at).c_str());
  }
  return 0;
}

int cmd_signing_keys_rotate(const Args& args, const std::string& config_path) {
  args.allow_only({"alg", "now"});
  CommandEnv env(config_path);
  const crypto::SigningAlg alg = alg_option(args, env.config);
  // Published at once; signing only once every backend's cached JWKS and
  // every worker's key set can hold it.
  const long long activate_at = args.flag("now") ? now() : now() + kJwksMaxAge + env.config.tokens.key_cache_seconds;
  db::SigningKeyRow row = new_key(env.config, alg, activate_at);
  db::SigningKeyRepo(env.db).insert(row);
  std::printf("%s\n", row.kid.c_str());
  std::fprintf(stderr, "svc-admin: key %s (%s) published; it signs from %s\n", row.kid.c_str(), row.alg.c_str(),
               format_time(activate_at).c_str());
  return 0;
}

int cmd_signing_keys_retire(const Args& args, const std::string& config_path) {
  args.allow_only({"now"});
  const auto& words = args.words();
  if (words.size() != 3)
    throw UsageError("signing-keys retire takes one kid: svc-admin signing-keys retire KID [--now]");
  const std::string& kid = words[2];
  CommandEnv env(config_path);
  db::SigningKeyRepo repo(env.db);
  const auto keys = repo.all();
  auto key = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.kid == kid; });
  if (key == keys.end()) throw std::runtime_error("no signing key " + kid);
  const long long t = now();
  // It stops signing when the first newer key activates; tokens it signed
  // until then (a worker may keep it key_cache_seconds longer) live access_ttl.
  long long stopped = -1;
  for (const auto& k : keys) {
    if (k.kid != kid && signs_id_tokens(k.alg) == signs_id_tokens(key->alg) && k.activate_at >= key->activate_at &&
        (stopped < 0 || k.activate_at < stopped)) {
      stopped = k.activate_at;
    }
  }
  const bool signs_now = signer_at(keys, t, key->alg) == kid;
  if (args.flag("now") ? signs_now : stopped < 0) {
    throw std::runtime_error("key " + kid +
                             (signs_id_tokens(key->alg) ? " signs the ID tokens" : " signs the access tokens") +
                             ": svc-admin signing-keys rotate first (with --now to retire it "
                             "at once)");
  }
  const long long retire_at =
      args.flag("now") ? t : std::max(t, stopped + env.config.tokens.key_cache_seconds + env.config.auth.access_ttl);
  repo.set_retire_at(kid, retire_at);
  std::printf("%s retired at %s\n", kid.c_str(), format_time(retire_at).c_str());
  return 0;
}

}  // namespace svc::admin
