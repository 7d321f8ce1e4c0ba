#include "auth/account/self_service.hpp"

#include "auth/auth_common.hpp"
#include "auth/email/mail_caps.hpp"
#include "auth/mfa/notice.hpp"
#include "auth/session/sessions.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "crypto/password_hasher.hpp"
#include "db/account_repo.hpp"
#include "db/session_repo.hpp"
#include "db/throttle_repo.hpp"
#include "db/transaction.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/reset_url.hpp"
#include "messaging/outbox.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {
namespace {

constexpr const char* kConfirmTyp = "email-change";
constexpr const char* kUndoTyp = "email-undo";

http::ApiError invalid_link() { return http::ApiError::failed(400, "Email change token has expired or is invalid"); }
http::ApiError taken() { return http::ApiError::failed(409, "User with this email already exists"); }

crypto::JwtKeyRing email_change_keys(const core::Context& ctx) {
  return crypto::derive_key_ring(ctx.config.keys.jwt, "svc-email-change-token-key");
}

// The ready page of e-mail change links: beside the verification page
// ([auth] verify_page, which defaults from reset_page), named email-change.
std::string email_change_page(const core::Context& ctx) {
  const std::string& beside = ctx.config.auth.verify_page;
  if (beside.empty()) return "";
  return beside.substr(0, beside.rfind('/') + 1) + "email-change";
}

// The fingerprint of the user's password hash an e-mail change link carries
// (as a reset token does): a link from before a password change or reset
// no longer matches.
std::string password_mark(const core::Context& ctx, const db::User& user) {
  return crypto::password_fingerprint(user.password, ctx.config.keys.reset_key);
}

// A link naming `change`; `user` carries its password hash as stored now
// (not a cached row), whose fingerprint the link carries.
std::string change_token(core::Context& ctx, const char* typ, const db::User& user, const db::EmailChange& change,
                         long long ttl) {
  crypto::Claims c = account_token_claims(ctx, typ, &user, change.table, change.site_id, ttl);
  c.jti = std::to_string(change.id);
  c.pwf = password_mark(ctx, user);
  return crypto::jwt_sign(c, email_change_keys(ctx).current);
}

// A link's change, locked for the caller's transaction.
struct Named {
  db::EmailChange change;
  db::TableName table;
  bool same_password = false;  // the user's password is the one the link was mailed with
};

// The change a link names: the token's signature, type and expiry, then a
// row of the same user and table, and whether that user's password is
// still the one the link was mailed with.
Named change_of(core::Context& ctx, const std::string& token, const char* typ) {
  auto verified = crypto::jwt_verify(token, email_change_keys(ctx), typ, ctx.clock.now());
  if (!verified.ok()) throw invalid_link();
  const long long id = core::parse_id(verified.claims.jti).value_or(0);
  auto change = id > 0 ? db::AccountRepo(ctx.db).find_email_change(id) : std::nullopt;
  auto table = change ? db::allowlisted(change->table, ctx.config.auth.tables) : std::nullopt;
  if (!change || !table || std::to_string(change->user_id) != verified.claims.sub ||
      change->table != verified.claims.tbl || change->expires_at <= ctx.clock.now()) {
    throw invalid_link();
  }
  auto user = db::UserRepo(ctx.db, *table).find_by_id(change->user_id);
  if (!user) throw invalid_link();
  const bool same = crypto::constant_time_equal(verified.claims.pwf, password_mark(ctx, *user));
  return {*change, *table, same};
}

// Whether the session that asked for `change` is still open: a change
// outlives neither a sign-out nor the end of that session.
bool asker_signed_in(core::Context& ctx, const db::EmailChange& change) {
  auto row = change.session_id.empty() ? std::nullopt : db::SessionRepo(ctx.db).find(change.session_id);
  return row && !row->revoked_at && row->expires_at > ctx.clock.now() && row->user_id == change.user_id &&
         row->table == change.table;
}

// The keyed digest an audit row names a deleted user by.
std::string hashed_user(const core::Context& ctx, const std::string& table, long long user_id) {
  const std::string mac =
      crypto::hmac_sha256(ctx.config.keys.reset_key, "deleted-user:" + table + ":" + std::to_string(user_id));
  return crypto::hex_encode(mac).substr(0, 32);
}

void write_rows(http::JsonWriter& w, const db::ExportRows& part) {
  for (const auto& row : part.rows) {
    w.open();
    for (size_t i = 0; i < row.size(); ++i) w.kv(part.columns[i], row[i]);
    w.close();
  }
}

}  // namespace

void require_own_password(const http::Request& request, core::Context& ctx, const SignedInUser& me,
                          const std::string& password, const char* event) {
  const std::string key = claim_own_attempt(ctx, me);
  auto stored = db::UserRepo(ctx.db, me.table).find_by_id(me.user.id);
  if (!stored || !ctx.hasher.verify(stored->password, password).ok) {
    audit(ctx, request, event, me.table.str(), me.user.id, me.app_id, "wrong password");
    throw http::ApiError::failed(401, "Invalid credentials");
  }
  db::ThrottleRepo(ctx.db).reset(me.table.str(), key);
}

void change_password(const http::Request& request, core::Context& ctx, const SignedInUser& me,
                     const std::string& fresh) {
  const std::string hash = ctx.hasher.hash(fresh);
  db::UserRepo users(ctx.db, me.table);
  db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    auto stored = users.find_by_id(me.user.id);
    // Changed by another request since the check: that one's password holds.
    if (!stored || !users.replace_password_hash(stored->id, stored->password, hash)) {
      throw http::ApiError::failed(401, "Invalid credentials");
    }
    record_user_version(ctx, me.table, *stored, "update");
    end_sessions(ctx, me.table.str(), me.user.id, "password_changed", me.sid);
    webhooks::enqueue(ctx.db, me.app_id, "user.password_changed",
                      db::user_data(me.table.str(), me.user.id, stored->email));
    tx.commit();
  });
  audit(ctx, request, "password_changed", me.table.str(), me.user.id, me.app_id);
  queue_account_notice(ctx, request, me.app_id, me.table, me.user, "password-changed");
}

void request_email_change(const http::Request& request, core::Context& ctx, const SignedInUser& me,
                          const std::string& fresh) {
  if (core::ascii_lower(fresh) == core::ascii_lower(me.user.email)) {
    throw http::ApiError::validation("new_email", "new_email is already the account's address");
  }
  const std::string page = email_change_page(ctx);
  if (page.empty()) throw http::ApiError::failed(503, "Email change is not configured");
  // Taken only within the user's own pool (design "User pools").
  if (db::UserRepo(ctx.db, me.table, me.user.pool_id).find_by_email(fresh)) throw taken();
  if (auto wait = mail_cap_wait(ctx, me.user.id, me.table.str(), db::SmsEvent::kChangeSent, MailCap::kDailyAndGap)) {
    throw http::ApiError::too_many("Too many requests", *wait);
  }
  // Read again for the hash the links carry (the token's row may be cached).
  auto stored = db::UserRepo(ctx.db, me.table).find_by_id(me.user.id);
  if (!stored) throw http::ApiError::failed(401, "Unauthorized");

  const long long now = ctx.clock.now();
  db::EmailChange change;
  change.table = me.table.str();
  change.user_id = me.user.id;
  change.site_id = me.app_id;
  change.session_id = me.sid;
  change.old_email = me.user.email;
  change.new_email = fresh;
  change.created_at = now;
  change.expires_at = now + kEmailUndoSeconds;
  db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    change.id = db::AccountRepo(ctx.db).insert_email_change(change);
    const long long confirm_ttl = ctx.config.auth.verify_ttl;
    const std::string confirm =
        http::ready_page_link(page, me.app_id, change_token(ctx, kConfirmTyp, *stored, change, confirm_ttl));
    const std::string undo =
        http::ready_page_link(page, me.app_id, change_token(ctx, kUndoTyp, *stored, change, kEmailUndoSeconds));
    queue_account_notice(ctx, request, me.app_id, me.table, me.user, "email-change-confirm",
                         {{"link", confirm}, {"newEmail", fresh}, {"hours", std::to_string(confirm_ttl / 3600)}},
                         fresh);
    queue_account_notice(ctx, request, me.app_id, me.table, me.user, "email-change-notice",
                         {{"link", undo}, {"newEmail", fresh}, {"days", std::to_string(kEmailUndoSeconds / 86400)}});
    count_capped_mail(ctx, me.user.id, me.table.str(), db::SmsEvent::kChangeSent);
    audit(ctx, request, "email_change_requested", me.table.str(), me.user.id, me.app_id,
          "change " + std::to_string(change.id));
    tx.commit();
  });
}

void confirm_email_change(const http::Request& request, core::Context& ctx, const std::string& token) {
  const std::string page = email_change_page(ctx);
  db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    const Named named = change_of(ctx, token, kConfirmTyp);
    const db::EmailChange& change = named.change;
    const db::TableName& table = named.table;
    db::UserRepo users(ctx.db, table);
    const long long now = ctx.clock.now();
    // The request stands only while what made it does: the session that
    // asked, and the password it was made with (docs/decisions.md "Issue
    // 48: the account goes back to the mailbox's holder").
    if (!named.same_password || !asker_signed_in(ctx, change)) throw invalid_link();
    if (change.confirmed_at || change.undone_at || !db::AccountRepo(ctx.db).mark_confirmed(change.id, now)) {
      throw invalid_link();
    }
    switch (db::AccountRepo(ctx.db).set_email(table, change.user_id, change.old_email, change.new_email)) {
      case db::AccountRepo::EmailSet::kTaken:
        throw taken();  // rolled back: the old address stays, the link may be used again
      case db::AccountRepo::EmailSet::kStale:
        throw invalid_link();  // the address changed since the request
      case db::AccountRepo::EmailSet::kChanged:
        break;
    }
    users.prove_address(change.user_id, now);  // the link came to the new address
    auto user = users.find_by_id(change.user_id);
    if (!user) throw invalid_link();
    record_user_version(ctx, table, *user, "update");
    end_sessions(ctx, table.str(), user->id, "email_changed", change.session_id);
    webhooks::enqueue(ctx.db, change.site_id, "user.email_changed", db::user_data(table.str(), user->id, user->email));
    // The old address hears of it, with the undo link (it works while the
    // password stays the one this change was made with).
    db::User before = *user;
    before.email = change.old_email;
    const std::string undo =
        http::ready_page_link(page, change.site_id, change_token(ctx, kUndoTyp, *user, change, kEmailUndoSeconds));
    queue_account_notice(
        ctx, request, change.site_id, table, before, "email-changed",
        {{"link", undo}, {"newEmail", change.new_email}, {"days", std::to_string(kEmailUndoSeconds / 86400)}});
    audit(ctx, request, "email_changed", table.str(), user->id, change.site_id, "change " + std::to_string(change.id));
    tx.commit();
  });
}

void undo_email_change(const http::Request& request, core::Context& ctx, const std::string& token) {
  db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    const Named named = change_of(ctx, token, kUndoTyp);
    const db::EmailChange& change = named.change;
    const db::TableName& table = named.table;
    db::UserRepo users(ctx.db, table);
    // After the confirmation, the old mailbox takes the address back only
    // while the password is the one the change was made with: once the
    // holder of the new address has set another, it is theirs.
    if (change.confirmed_at && !named.same_password) throw invalid_link();
    if (change.undone_at || !db::AccountRepo(ctx.db).mark_undone(change.id, ctx.clock.now())) throw invalid_link();
    if (change.confirmed_at) {
      switch (db::AccountRepo(ctx.db).set_email(table, change.user_id, change.new_email, change.old_email)) {
        case db::AccountRepo::EmailSet::kTaken:
          throw taken();
        case db::AccountRepo::EmailSet::kStale:
          throw invalid_link();  // changed again since: this link no longer says what to restore
        case db::AccountRepo::EmailSet::kChanged:
          break;
      }
    }
    auto user = users.find_by_id(change.user_id);
    if (!user) throw invalid_link();
    if (change.confirmed_at) {
      record_user_version(ctx, table, *user, "update");
      webhooks::enqueue(ctx.db, change.site_id, "user.email_changed",
                        db::user_data(table.str(), user->id, user->email));
    }
    end_sessions(ctx, table.str(), user->id, "email_restored");
    audit(ctx, request, "email_restored", table.str(), user->id, change.site_id, "change " + std::to_string(change.id));
    tx.commit();
  });
}

void delete_account(const http::Request& request, core::Context& ctx, const db::TableName& table, const db::User& user,
                    long long site_id, const char* actor) {
  // Read before the row goes: the notice is written in the reader's language.
  const auto notice = account_notice(ctx, request, site_id, table, user, "account-deleted");
  webhooks::atomically(ctx.db, [&] {
    db::AccountRepo(ctx.db).erase_user_rows(table.str(), user.id, user.email);
    db::AccountRepo(ctx.db).remove_user(table, user.id);
    webhooks::enqueue(ctx.db, site_id, "user.deleted", db::user_data(table.str(), user.id, user.email));
    if (notice) messaging::enqueue(ctx, *notice);
    audit(ctx, request, "account_deleted", table.str(), 0, site_id,
          std::string("by ") + actor + ", user " + hashed_user(ctx, table.str(), user.id));
    return true;
  });
}

std::string export_account(core::Context& ctx, const db::TableName& table, const db::User& user) {
  db::UserRepo users(ctx.db, table);
  http::JsonWriter w;
  w.open().kv("status", "Success").open("account");
  w.open("profile").kv("id", user.id).kv("table", table.str()).kv("email", user.email);
  w.kv("first_name", user.first_name).kv("last_name", user.last_name).kv("role", user.role);
  w.kv("mobile", user.mobile).kv("active", user.active).kv("email_verified", user.email_verified);
  w.kv("locale", users.locale(user.id)).close();
  db::AccountRepo repo(ctx.db);
  for (const std::string& part : db::AccountRepo::export_parts()) {
    w.open_array(part);
    // The mail to the address is its holder's: none before the user proved
    // they hold it (anyone may sign up with any address).
    if (part != "mail" || user.email_verified) write_rows(w, repo.export_part(part, table.str(), user.id, user.email));
    w.close_array();
  }
  w.close().close();
  return w.str();
}

}  // namespace svc::auth
