#include "auth/passkey/service.hpp"

#include "auth/app_id.hpp"
#include "auth/auth_common.hpp"
#include "auth/mfa/login.hpp"
#include "auth/mfa/mail.hpp"
#include "auth/passkey/verify.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "http/api_error.hpp"
#include "http/site_cache.hpp"
#include "webhooks/events.hpp"

namespace svc::auth::passkey {
namespace {

// A challenge_token carries 256 random bits: a keyed digest keeps it out of
// the database (as mfa_tokens are kept).
std::string token_hash(const std::string& token) {
  return crypto::hex_encode(crypto::hmac_sha256("svc-passkey-challenge", token));
}

std::string credential_hash(const std::string& raw_id) { return crypto::hex_encode(crypto::sha256(raw_id)); }

std::string random_b64(std::size_t n) { return crypto::base64url_encode(crypto::random_bytes(n)); }

Ceremony open(core::Context& ctx, db::PasskeyChallenge challenge, std::string options_json) {
  const std::string token = random_b64(32);
  db::PasskeyRepo(ctx.db).create_challenge(token_hash(token), challenge, ctx.clock.now() + kChallengeSeconds);
  return {std::move(options_json), token};
}

std::vector<std::string> methods_of(const crypto::webauthn::AuthenticatorData& data, const db::Passkey& key) {
  std::vector<std::string> amr{key.backup_eligible || data.backup_eligible() ? "swk" : "hwk"};
  if (data.user_verified()) amr.emplace_back("user");
  return amr;
}

// Every check of one assertion against the passkey it names. Records the
// use (and the new sign count) when accepted.
struct Verdict {
  std::string refusal;  // the audit detail of a refusal; "" = accepted
  std::optional<db::Passkey> key;
  std::vector<std::string> amr;
};

Verdict check(core::Context& ctx, const db::PasskeyChallenge& challenge, const AuthenticationResponse& response,
              const http::Request& request) {
  db::PasskeyRepo repo(ctx.db);
  auto rp = repo.find_rp(challenge.site_id);
  auto key = rp ? repo.find_by_credential(challenge.site_id, credential_hash(response.raw_id)) : std::nullopt;
  if (!key) return {"passkey: unknown credential", {}, {}};
  if (challenge.bound && (key->table != challenge.table || key->user_id != challenge.user_id)) {
    return {"passkey: another user's credential", key, {}};
  }
  if (!response.user_handle.empty() &&
      !crypto::constant_time_equal(crypto::base64url_encode(response.user_handle), key->user_handle)) {
    return {"passkey: wrong user handle", key, {}};
  }
  auto cose = crypto::base64url_decode(key->public_key);
  const Expectation expected{"webauthn.get", challenge.challenge, rp->origins, rp->rp_id, challenge.uv_required};
  AssertionCheck checked = check_assertion(expected, response.client_data_json, response.authenticator_data,
                                           response.signature, cose.value_or(""));
  if (checked.refusal != Refusal::kNone) return {std::string("passkey: ") + describe(checked.refusal), key, {}};
  const long long fresh = checked.data->sign_count;
  const bool grows = (fresh == 0 && key->sign_count == 0) || fresh > key->sign_count;
  if (!grows || !repo.record_use(key->id, fresh, checked.data->backed_up(), ctx.clock.now())) {
    core::LogLine("warning", "passkey_clone_suspected")
        .str("request_id", request.request_id)
        .num("site_id", key->site_id)
        .num("passkey_id", key->id)
        .num("stored_sign_count", key->sign_count)
        .num("sign_count", fresh)
        .emit();
    audit(ctx, request, "passkey_clone_suspected", key->table, key->user_id, key->site_id,
          "sign count " + std::to_string(fresh) + " after " + std::to_string(key->sign_count));
    return {"passkey: sign count did not grow", key, {}};
  }
  return {"", key, methods_of(*checked.data, *key)};
}

LoginResult first_factor(core::Context& ctx, const db::PasskeyChallenge& challenge,
                         const AuthenticationResponse& response, const http::Request& request) {
  Verdict v = check(ctx, challenge, response, request);
  auto table = v.key ? db::allowlisted(v.key->table, ctx.config.auth.tables) : std::nullopt;
  std::optional<db::User> user;
  if (v.refusal.empty() && table) user = db::UserRepo(ctx.db, *table).find_by_id(v.key->user_id);
  if (v.refusal.empty() && (!user || !user->active)) v.refusal = "passkey: user gone or inactive";
  if (!v.refusal.empty()) {
    audit(ctx, request, "login_failed", v.key ? v.key->table : "", v.key ? v.key->user_id : 0, challenge.site_id,
          v.refusal);
    return {};
  }
  audit(ctx, request, "login_ok", table->str(), user->id, challenge.site_id, "passkey");
  TokenPair tokens = issue_tokens(request, *user, table->str(), challenge.site_id, SignIn{ctx.clock.now(), v.amr}, ctx);
  return {LoginOutcome::kOk, 0, {std::move(*user), std::move(tokens)}};
}

LoginResult second_factor(core::Context& ctx, const db::PasskeyChallenge& challenge,
                          const AuthenticationResponse& response, const http::Request& request) {
  auto answer = [&](const std::string& table, const db::User& user,
                    const db::MfaChallenge&) -> std::optional<std::vector<std::string>> {
    if (table != challenge.table || user.id != challenge.user_id) return std::nullopt;
    Verdict v = check(ctx, challenge, response, request);
    if (v.refusal.empty()) return v.amr;
    // login_failed says "wrong second factor (passkey)"; this row says why.
    audit(ctx, request, "passkey_refused", table, user.id, challenge.site_id, "second factor: " + v.refusal);
    return std::nullopt;
  };
  MfaResult result = verify_second_factor_with(challenge.mfa_token_hash, "passkey", answer, request, ctx);
  switch (result.outcome) {
    case MfaOutcome::kOk:
      return {LoginOutcome::kOk, 0, std::move(result.session)};
    case MfaOutcome::kExpired:
      return {LoginOutcome::kExpired, 0, {}};
    case MfaOutcome::kWrong:
      return {};
    case MfaOutcome::kThrottled:
      return {LoginOutcome::kThrottled, result.retry_after, {}};
  }
  return {};
}

}  // namespace

db::RelyingParty relying_party(core::Context& ctx, long long site_id) {
  // No site (a token without appID), an unknown or an inactive one: named as
  // login names it (auth/app_id.hpp); an inactive site signs nobody in.
  const auto site = site_id > 0 ? http::find_site(ctx, site_id) : std::nullopt;
  if (!site || !site->active) throw http::ApiError::validation("appID", "appID does not name an application");
  auto rp = db::PasskeyRepo(ctx.db).find_rp(site_id);
  if (!rp) throw http::ApiError::failed(400, "Passkeys are not configured for this site: rp_id is not set");
  return *rp;
}

bool offered(core::Context& ctx, long long site_id) { return db::PasskeyRepo(ctx.db).find_rp(site_id).has_value(); }

Ceremony open_registration(const SignedInUser& me, core::Context& ctx) {
  const db::RelyingParty rp = relying_party(ctx, me.app_id);
  db::PasskeyRepo repo(ctx.db);
  const std::vector<db::Passkey> existing = repo.list(me.app_id, me.table.str(), me.user.id);
  // One user.id per user and site, random (WebAuthn §14.6.1: no personal data).
  const std::string handle = existing.empty() ? random_b64(32) : existing.front().user_handle;
  const auto site = http::find_site(ctx, me.app_id);
  db::PasskeyChallenge c;
  c.site_id = me.app_id;
  c.kind = "register";
  c.challenge = random_b64(32);
  c.table = me.table.str();
  c.user_id = me.user.id;
  c.bound = true;
  c.uv_required = true;
  c.user_handle = handle;
  std::string options = creation_options(
      {rp.rp_id, site && !site->name.empty() ? site->name : rp.rp_id, handle, &me.user, c.challenge, &existing});
  return open(ctx, std::move(c), std::move(options));
}

db::Passkey finish_registration(const SignedInUser& me, const std::string& challenge_token,
                                const RegistrationResponse& response, const std::string& name,
                                const http::Request& request, core::Context& ctx) {
  const long long now = ctx.clock.now();
  db::PasskeyRepo repo(ctx.db);
  auto c = repo.claim_challenge(token_hash(challenge_token), now);
  if (!c || c->kind != "register" || c->site_id != me.app_id || c->table != me.table.str() ||
      c->user_id != me.user.id) {
    throw http::ApiError::failed(401, "Passkey challenge expired, start again");
  }
  const db::RelyingParty rp = relying_party(ctx, c->site_id);
  const Expectation expected{"webauthn.create", c->challenge, rp.origins, rp.rp_id, true};
  RegistrationCheck checked =
      check_registration(expected, response.raw_id, response.client_data_json, response.attestation_object);
  if (checked.refusal != Refusal::kNone) {
    audit(ctx, request, "passkey_refused", me.table.str(), me.user.id, me.app_id,
          std::string("register: ") + describe(checked.refusal));
    throw http::ApiError::failed(400, "Passkey not accepted");
  }
  const auto& data = checked.attestation->parsed;
  db::Passkey k;
  k.site_id = me.app_id;
  k.table = me.table.str();
  k.user_id = me.user.id;
  k.credential_id = crypto::base64url_encode(response.raw_id);
  k.public_key = crypto::base64url_encode(data.attested->public_key);
  k.alg = checked.alg;
  k.user_handle = c->user_handle;
  k.sign_count = data.sign_count;
  k.backup_eligible = data.backup_eligible();
  k.backed_up = data.backed_up();
  k.aaguid = crypto::hex_encode(data.attested->aaguid);
  k.attestation_fmt = checked.attestation->fmt.substr(0, 32);
  k.transports = core::join(response.transports, " ");
  k.name = name;
  k.created_at = now;
  std::optional<long long> id;
  webhooks::change_with_event(ctx.db, me.app_id, "user.passkey_added",
                              db::user_data(me.table.str(), me.user.id, me.user.email), [&] {
                                id = repo.insert(k, credential_hash(response.raw_id));
                                return id.has_value();
                              });
  if (!id) throw http::ApiError::failed(409, "Passkey already registered");
  k.id = *id;
  audit(ctx, request, "passkey_added", me.table.str(), me.user.id, me.app_id, k.name);
  queue_mfa_mail(ctx, request, me.app_id, me.table, me.user, MfaChange::kPasskeyAdded);
  return k;
}

Ceremony open_login(core::Context& ctx, long long site_id, const std::optional<std::string>& email,
                    const db::TableName& table) {
  const db::RelyingParty rp = relying_party(ctx, site_id);
  db::PasskeyChallenge c;
  c.site_id = site_id;
  c.kind = "login";
  c.challenge = random_b64(32);
  c.uv_required = true;
  if (email) {
    auto user = db::UserRepo(ctx.db, table, user_pool(ctx, site_id)).find_by_email(*email);
    c.bound = true;
    c.table = table.str();
    c.user_id = user ? user->id : 0;
  }
  std::string options = request_options(rp.rp_id, c.challenge, {}, true);
  return open(ctx, std::move(c), std::move(options));
}

Ceremony open_second_factor(core::Context& ctx, const std::string& mfa_token) {
  auto mfa = find_mfa_challenge(ctx, mfa_token);
  if (!mfa) throw http::ApiError::failed(401, "Second factor expired, log in again");
  const db::RelyingParty rp = relying_party(ctx, mfa->site_id);
  db::PasskeyChallenge c;
  c.site_id = mfa->site_id;
  c.kind = "mfa";
  c.challenge = random_b64(32);
  c.table = mfa->table;
  c.user_id = mfa->user_id;
  c.bound = true;
  c.uv_required = false;
  c.mfa_token_hash = mfa_token_hash(mfa_token);
  const auto keys = db::PasskeyRepo(ctx.db).list(c.site_id, c.table, c.user_id);
  std::string options = request_options(rp.rp_id, c.challenge, keys, false);
  return open(ctx, std::move(c), std::move(options));
}

LoginResult finish_login(const std::string& challenge_token, const AuthenticationResponse& response,
                         const http::Request& request, core::Context& ctx) {
  auto c = db::PasskeyRepo(ctx.db).claim_challenge(token_hash(challenge_token), ctx.clock.now());
  if (!c || (c->kind != "login" && c->kind != "mfa")) return {LoginOutcome::kExpired, 0, {}};
  return c->kind == "mfa" ? second_factor(ctx, *c, response, request) : first_factor(ctx, *c, response, request);
}

}  // namespace svc::auth::passkey
