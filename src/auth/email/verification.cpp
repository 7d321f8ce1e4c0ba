#include "auth/email/verification.hpp"

#include "auth/account_mail.hpp"
#include "auth/auth_common.hpp"
#include "auth/mfa/proof.hpp"
#include "auth/tokens/tokens.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "db/sms_code_repo.hpp"
#include "db/transaction.hpp"
#include "http/api_error.hpp"
#include "http/reset_url.hpp"
#include "messaging/outbox.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {
namespace {

crypto::JwtKeyRing verify_token_keys(const core::Context& ctx) {
  return crypto::derive_key_ring(ctx.config.keys.jwt, "svc-verify-token-key");
}

// The address a token proves, as a keyed digest (the address itself stays
// out of the URL): once the user's address changes, the token proves nothing.
std::string address_fingerprint(const core::Context& ctx, const std::string& email) {
  return crypto::password_fingerprint("verify-email:" + core::ascii_lower(email), ctx.config.keys.reset_key);
}

// Signed for user 0 when nobody gets the mail, so the work is the same.
std::string verify_token(core::Context& ctx, const db::User* user, const std::string& email, const std::string& table,
                         long long site_id) {
  crypto::Claims c = account_token_claims(ctx, "verify", user, table, site_id, ctx.config.auth.verify_ttl);
  c.pwf = address_fingerprint(ctx, email);
  return crypto::jwt_sign(c, verify_token_keys(ctx).current);
}

// The verification mail to `to` in the language of the user `to.id` of
// `table` (id 0, a stand-in: the default language, after the same read).
db::OutboxEntry verification_mail(core::Context& ctx, const http::Request& request, const db::Site& site,
                                  const db::TableName& table, const db::User& to, const std::string& token) {
  const std::string link = http::ready_page_link(ctx.config.auth.verify_page, site.id, token);
  return account_mail(ctx, request, site, "verify-email", to,
                      {{"link", link}, {"hours", std::to_string(ctx.config.auth.verify_ttl / 3600)}},
                      db::UserRepo(ctx.db, table).locale(to.id));
}

// The rolling window of the daily cap on verification mails.
constexpr long long kDay = 24 * 3600;

// Why a resend mails nothing, for the audit row.
const char* no_mail_reason(const std::optional<db::User>& user, const db::Site& site, bool eligible, bool capped) {
  if (!user) return "unknown e-mail";
  if (!site.verify_email) return "the site does not verify addresses";
  if (!eligible) return "no mail: verified already, inactive or e-mail disabled";
  return capped ? "daily cap on verification mails" : "the last verification mail is too recent";
}

bool verify_page_configured(const core::Context& ctx, const http::Request& request) {
  if (!ctx.config.auth.verify_page.empty()) return true;
  core::LogLine("error", "verify_page_missing")
      .str("request_id", request.request_id)
      .str("detail", "set [auth] verify_page (or reset_page) to send verification links")
      .emit();
  return false;
}

}  // namespace

void queue_verification_mail(core::Context& ctx, const http::Request& request, const db::Site& site,
                             const db::TableName& table, const db::User& user) {
  if (site.disable_email || !verify_page_configured(ctx, request)) return;
  messaging::enqueue(ctx, verification_mail(ctx, request, site, table, user,
                                            verify_token(ctx, &user, user.email, table.str(), site.id)));
  audit(ctx, request, "verify_email_sent", table.str(), user.id, site.id);
}

bool resend_verification(core::Context& ctx, const http::Request& request, const std::string& email, long long app_id,
                         const db::TableName& table) {
  auto site = db::SiteRepo(ctx.db).find(app_id);
  if (!site || !site->active) throw http::ApiError::validation("appID", "appID does not name an application");
  db::UserRepo users(ctx.db, table, site->user_pool);
  auto user = users.find_by_email(email);
  const bool eligible = user && user->active && !user->email_verified && users.tracks_verification() &&
                        site->verify_email && !site->disable_email && verify_page_configured(ctx, request);
  // The e-mail codes' caps (issue 36): one mail per email_code_resend_seconds
  // and email_code_max_sent_daily a day, counted beside the codes; read for
  // user 0 when there is no user, so the work is the same.
  const auto& rules = ctx.config.auth.email_code;
  const long long now = ctx.clock.now();
  const long long subject = user ? user->id : 0;
  db::SmsCodeRepo events(ctx.db, db::kEmailCodeTables);
  const bool capped =
      events.window_full(subject, table.str(), db::SmsEvent::kVerifySent, rules.max_sent_daily, kDay, now).has_value();
  const bool too_soon =
      events.window_full(subject, table.str(), db::SmsEvent::kVerifySent, 1, rules.resend_seconds, now).has_value();
  const bool mail = eligible && !capped && !too_soon;
  db::User stand_in;
  stand_in.email = email;
  const db::User& to = mail ? *user : stand_in;
  const db::OutboxEntry entry = verification_mail(
      ctx, request, *site, table, to, verify_token(ctx, mail ? &*user : nullptr, email, table.str(), site->id));
  const bool committed = db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    messaging::enqueue(ctx, entry);
    events.record_sent(subject, table.str(), kDay, now, db::SmsEvent::kVerifySent);
    if (!mail) return false;  // rolled back: nothing of the stand-in's mail remains
    audit(ctx, request, "verify_email_sent", table.str(), user->id, site->id);
    tx.commit();
    return true;
  });
  if (!committed) {
    audit(ctx, request, "verify_email_requested", table.str(), subject, site->id,
          no_mail_reason(user, *site, eligible, capped));
  }
  return committed;
}

void verify_email_token(core::Context& ctx, const http::Request& request, const std::string& token) {
  auto invalid = [] { return http::ApiError::failed(400, "Verification token has expired or is invalid"); };
  auto verified = crypto::jwt_verify(token, verify_token_keys(ctx), "verify", ctx.clock.now());
  if (!verified.ok()) throw invalid();
  auto table = db::allowlisted(verified.claims.tbl, ctx.config.auth.tables);
  const long long user_id = core::parse_id(verified.claims.sub).value_or(0);
  if (!table || user_id <= 0) throw invalid();
  db::UserRepo users(ctx.db, *table);
  auto user = users.find_by_id(user_id);
  if (!user || !user->active || !users.tracks_verification() ||
      !crypto::constant_time_equal(verified.claims.pwf, address_fingerprint(ctx, user->email))) {
    throw invalid();
  }
  // The first proof is the event (a later link proves again and is none).
  db::AddressProof proof;
  webhooks::change_with_event(ctx.db, verified.claims.app, "user.email_verified",
                              db::user_data(table->str(), user->id, user->email), [&] {
                                proof = users.prove_address(user->id, ctx.clock.now());
                                return proof.previous == 0;
                              });
  if (proof.previous == 0) audit(ctx, request, "email_verified", table->str(), user->id, verified.claims.app);
  drop_unproven_enrolments(ctx, request, verified.claims.app, *table, *user, proof, false);
}

}  // namespace svc::auth
