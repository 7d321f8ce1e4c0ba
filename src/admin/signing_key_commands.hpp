#pragma once
// svc-admin signing-keys: the access-token signing keys of svc_signing_keys
// (docs/operations.md "Rotating the access-token signing keys").

#include <string>

#include "admin/args.hpp"
#include "config/config.hpp"
#include "db/database.hpp"

namespace svc::admin {

// signing-keys list: every key, its state at this moment and its times.
int cmd_signing_keys_list(const Args& args, const std::string& config_path);
// signing-keys rotate [--alg ES256|EdDSA|RS256] [--now]: a new key, published at
// once and signing from now + 300 s (the JWKS max-age) + [tokens]
// key_cache_seconds, or at once with --now. Prints its kid.
int cmd_signing_keys_rotate(const Args& args, const std::string& config_path);
// signing-keys retire KID [--now]: unpublishes KID when the last access
// token it signed expires ([auth] access_ttl after it stopped signing, plus
// the workers' cache bound), or at once with --now. Refuses the key that
// signs now (rotate first).
int cmd_signing_keys_retire(const Args& args, const std::string& config_path);

// Makes the first signing key (alg [tokens] access_alg) when the table has
// none; returns its kid, or "" when a key existed (or access_alg = HS256).
// What `svc-admin migrate` runs after the migrations.
std::string ensure_signing_key(const config::Config& config, db::Database& db);
// Makes the first RS256 key (the OpenID Connect ID tokens', issue 39) when
// the table has none; returns its kid, or "" when one existed (or no
// [keys] signing_kek). Also run by `svc-admin migrate`.
std::string ensure_id_token_key(const config::Config& config, db::Database& db);

}  // namespace svc::admin
