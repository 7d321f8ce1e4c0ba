#include "auth/mfa/totp_factor.hpp"

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/totp.hpp"
#include "db/mfa_repo.hpp"

namespace svc::auth {
namespace {

constexpr std::string_view kCodeAlphabet = "abcdefghijklmnopqrstuvwxyz234567";  // 5 bits a character

std::string owner(const std::string& table, long long user_id) { return table + ":" + std::to_string(user_id); }

// The stored form of a recovery code: HMAC-SHA256 under a key derived from
// [keys] mfa_key, over the owner and the normalised code, in hex. The codes
// carry 50 random bits, so a fast keyed hash is enough (no Argon2id).
std::string recovery_hash(core::Context& ctx, const std::string& table, long long user_id, const std::string& code) {
  const std::string key = crypto::hmac_sha256(ctx.config.keys.mfa_key, "svc-mfa-recovery-code");
  return crypto::hex_encode(crypto::hmac_sha256(key, owner(table, user_id) + ":" + code));
}

// Lower case without spaces and dashes; "" when anything else is not of the
// code alphabet or the length is not 10.
std::string normalise_recovery_code(const std::string& typed) {
  std::string out;
  for (char c : typed) {
    if (c == '-' || c == ' ') continue;
    c = core::ascii_lower(c);
    if (kCodeAlphabet.find(c) == std::string_view::npos) return "";
    out += c;
  }
  return out.size() == 10 ? out : "";
}

}  // namespace

bool is_totp_code(const std::string& code) {
  if (code.size() != static_cast<std::size_t>(crypto::kTotpDigits)) return false;
  for (char c : code) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::optional<TotpSetup> set_up_totp(core::Context& ctx, const db::TableName& table, const db::User& user,
                                     const std::string& issuer) {
  const std::string secret = crypto::random_bytes(crypto::kTotpSecretBytes);
  const std::string sealed =
      crypto::base64url_encode(crypto::seal_totp_secret(secret, ctx.config.keys.mfa_key, owner(table.str(), user.id)));
  if (!db::MfaRepo(ctx.db).store_pending(table.str(), user.id, sealed, ctx.clock.now())) return std::nullopt;
  TotpSetup setup;
  setup.secret = crypto::base32_encode(secret);
  setup.otpauth_url = "otpauth://totp/" + core::percent_encode(issuer) + ":" + core::percent_encode(user.email) +
                      "?secret=" + setup.secret + "&issuer=" + core::percent_encode(issuer) +
                      "&algorithm=SHA1&digits=6&period=30";
  return setup;
}

bool import_totp(core::Context& ctx, const db::TableName& table, const db::User& user, const std::string& secret) {
  const std::string sealed =
      crypto::base64url_encode(crypto::seal_totp_secret(secret, ctx.config.keys.mfa_key, owner(table.str(), user.id)));
  db::MfaRepo repo(ctx.db);
  const long long now = ctx.clock.now();
  if (!repo.store_pending(table.str(), user.id, sealed, now)) return false;
  // Confirmed as if a code of two steps ago had been accepted: the codes of
  // the steps accept_totp compares (current - 1 on) all stay acceptable.
  return repo.accept_step(table.str(), user.id, sealed, crypto::totp_step(now) - 2, true, now);
}

bool accept_totp(core::Context& ctx, const std::string& table, long long user_id, const std::string& code,
                 bool confirming) {
  if (!is_totp_code(code)) return false;
  return accept_totp(ctx, table, user_id, db::MfaRepo(ctx.db).find_factor(table, user_id), code, confirming);
}

bool accept_totp(core::Context& ctx, const std::string& table, long long user_id,
                 const std::optional<db::TotpFactor>& factor, const std::string& code, bool confirming) {
  if (!is_totp_code(code) || !factor || factor->confirmed == confirming) return false;
  auto sealed = crypto::base64url_decode(factor->secret_sealed);
  auto secret =
      sealed ? crypto::open_totp_secret(*sealed, ctx.config.keys.mfa_key, owner(table, user_id)) : std::nullopt;
  if (!secret) return false;
  const long long now = ctx.clock.now();
  const long long current = crypto::totp_step(now);
  // Every candidate step is compared (constant time), so timing does not say
  // which one matched.
  long long matched = -1;
  for (long long step = current - 1; step <= current + 1; ++step) {
    if (crypto::constant_time_equal(crypto::totp_code(*secret, step), code) && step > factor->last_step) {
      matched = step;
    }
  }
  return matched >= 0 &&
         db::MfaRepo(ctx.db).accept_step(table, user_id, factor->secret_sealed, matched, confirming, now);
}

std::vector<std::string> issue_recovery_codes(core::Context& ctx, const std::string& table, long long user_id) {
  std::vector<std::string> codes;
  std::vector<std::string> hashes;
  for (int i = 0; i < kRecoveryCodeCount; ++i) {
    const std::string bytes = crypto::random_bytes(10);
    std::string code;
    for (unsigned char b : bytes) code += kCodeAlphabet[b & 0x1f];
    hashes.push_back(recovery_hash(ctx, table, user_id, code));
    codes.push_back(code.substr(0, 5) + "-" + code.substr(5));
  }
  db::MfaRepo(ctx.db).replace_recovery_codes(table, user_id, hashes, ctx.clock.now());
  return codes;
}

bool use_recovery_code(core::Context& ctx, const std::string& table, long long user_id, const std::string& code) {
  const std::string normal = normalise_recovery_code(code);
  if (normal.empty()) return false;
  return db::MfaRepo(ctx.db).use_recovery_code(table, user_id, recovery_hash(ctx, table, user_id, normal),
                                               ctx.clock.now());
}

}  // namespace svc::auth
