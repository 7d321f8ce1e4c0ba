#include "auth/email/code.hpp"

#include <sodium.h>

#include <cstdio>
#include <string_view>

#include "auth/account_mail.hpp"
#include "auth/auth_common.hpp"
#include "auth/email/mail_caps.hpp"
#include "auth/mfa/login.hpp"
#include "auth/mfa/proof.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/random.hpp"
#include "crypto/encoding.hpp"
#include "db/database.hpp"
#include "db/passkey_repo.hpp"
#include "db/site_repo.hpp"
#include "db/sms_code_repo.hpp"
#include "db/transaction.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "messaging/outbox.hpp"

namespace svc::auth {
namespace {

// The rolling window of the daily caps.
constexpr long long kCapWindow = 24 * 3600;

// A key of its own, derived from [keys] sms_key, so an e-mail code's hash
// never equals an SMS code's. The site is part of the message: a code asked
// for one site is a wrong guess at another.
std::string code_hash(const core::Context& ctx, const std::string& table, long long user_id, long long site_id,
                      std::string_view code) {
  const std::string key = crypto::hmac_sha256(ctx.config.keys.sms_key, "svc-email-code-key");
  return crypto::hmac_sha256(
      key, table + ":" + std::to_string(user_id) + ":" + std::to_string(site_id) + ":" + std::string(code));
}

// Wipes a buffer that held a code when the scope ends, whichever way it ends.
struct Wipe {
  void* data;
  size_t size;
  ~Wipe() { sodium_memzero(data, size); }
};

db::Site active_site(core::Context& ctx, long long app_id) {
  auto site = db::SiteRepo(ctx.db).find(app_id);
  if (!site || !site->active) throw http::ApiError::validation("appID", "appID does not name an application");
  return *site;
}

}  // namespace

void send_email_code(const EmailCodeRequest& ask, const http::Request& request, core::Context& ctx) {
  const auto& cfg = ctx.config.auth;
  const db::Site site = active_site(ctx, ask.app_id);
  const std::string& table = ask.table.str();
  const long long now = ctx.clock.now();
  db::SmsCodeRepo codes(ctx.db, db::kEmailCodeTables);

  auto user = db::UserRepo(ctx.db, ask.table, site.user_pool).find_by_email(ask.email);
  const bool eligible = user && user->active && !site.disable_email;
  // Nobody to mail: the same statements run for a stand-in user id and
  // recipient, in a transaction that is rolled back. The id is one no account
  // has (from 2^62), drawn from the address: requests for different unknown
  // addresses then lock different rows, as those for different users do,
  // instead of queueing on one shared row (which made them measurably slower).
  const long long subject = eligible ? user->id : stand_in_id(ask.email);
  db::User stand_in;
  stand_in.email = ask.email;
  const db::User& to = eligible ? *user : stand_in;
  const bool capped =
      codes.window_full(subject, table, db::SmsEvent::kSent, cfg.email_code.max_sent_daily, kCapWindow, now)
          .has_value();
  // The resend rule, read before the store: store() alone cannot tell a
  // kept code from a new one that happens to equal it.
  const auto last = codes.find(subject, table);
  const bool too_soon = last && last->created_at > now - cfg.email_code.resend_seconds;

  char code[8];
  Wipe wipe_code{code, sizeof code};
  std::snprintf(code, sizeof code, "%06u", ctx.random.uniform(1000000) % 1000000);
  const std::string hash = code_hash(ctx, table, subject, site.id, code);
  // The reader's language; read for user id 0 too, so the work is the same.
  const std::string locale = db::UserRepo(ctx.db, ask.table).locale(subject);
  const db::OutboxEntry entry =
      account_mail(ctx, request, site, "email-code", to,
                   {{"code", code}, {"minutes", std::to_string(cfg.email_code.ttl / 60)}}, locale);
  const char* detail = !user ? "unknown e-mail" : !eligible ? "no mail: inactive or e-mail disabled" : "";
  const bool sent = db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    const bool stored =
        codes.store(subject, table, hash, now + cfg.email_code.ttl, now, cfg.email_code.resend_seconds) && !too_soon;
    messaging::enqueue(ctx, entry);
    codes.record_sent(subject, table, kCapWindow, now);
    if (!eligible || capped || !stored) {
      if (eligible) detail = capped ? "daily cap on codes sent" : "a code was sent less than a minute ago";
      return false;  // rolled back: neither the code nor the mail remains
    }
    audit(ctx, request, "email_code_sent", table, subject, site.id);
    tx.commit();
    return true;
  });
  if (!sent) audit(ctx, request, "email_code_requested", table, user ? user->id : 0, site.id, detail);
}

EmailCodeResult sign_in_with_email_code(const EmailCodeRequest& ask, const std::string& code,
                                        const http::Request& request, core::Context& ctx) {
  const auto& cfg = ctx.config.auth;
  const db::Site site = active_site(ctx, ask.app_id);
  const std::string& table = ask.table.str();
  const long long now = ctx.clock.now();
  db::UserRepo users(ctx.db, ask.table, site.user_pool);
  auto user = users.find_by_email(ask.email);
  // Unknown and inactive users try user id 0, which never holds a code: the
  // same statement, nothing counted.
  const long long subject = user && user->active ? user->id : 0;
  const db::SmsGuessLimits limits{cfg.email_code.max_attempts, cfg.email_code.max_wrong_daily, kCapWindow};
  const auto verdict = db::SmsCodeRepo(ctx.db, db::kEmailCodeTables)
                           .try_code(subject, table, code_hash(ctx, table, subject, site.id, code), limits, now);
  if (verdict.outcome != db::SmsAttempt::Outcome::kVerified) {
    const char* why = subject == 0                                          ? "e-mail code: unknown or inactive"
                      : verdict.outcome == db::SmsAttempt::Outcome::kWrong  ? "e-mail code: wrong code"
                      : verdict.outcome == db::SmsAttempt::Outcome::kCapped ? "e-mail code: daily cap"
                                                                            : "e-mail code: no live code";
    audit(ctx, request, "login_failed", table, user ? user->id : 0, site.id, why);
    return {};
  }
  // The code reached the address: it is proven, whatever follows; a first
  // proof removes what was enrolled before it (before the second-factor check).
  const db::AddressProof proof = users.prove_address(user->id, now);
  user->email_verified = proof.recorded;
  drop_unproven_enrolments(ctx, request, site.id, ask.table, *user, proof, false);
  if (needs_second_factor(ctx, table, user->id)) {
    audit(ctx, request, "login_mfa_required", table, user->id, site.id, "after an e-mail code");
    const bool passkey = db::PasskeyRepo(ctx.db).has_passkey(site.id, table, user->id);
    return {EmailCodeOutcome::kSecondFactor, {}, open_mfa_challenge(ctx, table, user->id, site.id, "otp"), passkey};
  }
  audit(ctx, request, "login_ok", table, user->id, site.id, "e-mail code");
  TokenPair tokens = issue_tokens(request, *user, table, site.id, SignIn{now, {"otp"}}, ctx);
  return {EmailCodeOutcome::kOk, {std::move(*user), std::move(tokens)}, {}, false};
}

}  // namespace svc::auth
