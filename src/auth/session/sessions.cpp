#include "auth/session/sessions.hpp"

#include "auth/auth_common.hpp"
#include "auth/session/device.hpp"
#include "auth/session/new_device.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "db/account_repo.hpp"
#include "db/sql_codes.hpp"
#include "db/transaction.hpp"
#include "metrics/metrics.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {
namespace {

constexpr std::size_t kSessionIdBytes = 16;
constexpr std::size_t kSessionIdChars = 22;  // base64url of 16 bytes, no padding
constexpr std::size_t kUserAgentChars = 255;

std::string joined(const std::vector<std::string>& amr) {
  std::string out;
  for (const std::string& m : amr) out += (out.empty() ? "" : " ") + m;
  return out;
}

db::SessionRow new_row(core::Context& ctx, const http::Request& request, const db::User& user, const std::string& table,
                       long long site_id, const SignIn& sign_in) {
  const long long now = ctx.clock.now();
  db::SessionRow row;
  row.id = crypto::base64url_encode(crypto::random_bytes(kSessionIdBytes));
  row.site_id = site_id;
  row.table = table;
  row.user_id = user.id;
  row.generation = 1;
  row.created_at = row.last_seen_at = row.rotated_at = now;
  row.expires_at = now + ctx.config.auth.refresh_ttl;
  row.auth_time = sign_in.auth_time;
  row.amr = joined(sign_in.amr);
  row.ip = request.remote_addr.substr(0, 45);
  row.user_agent = core::utf8_clean(request.user_agent(), kUserAgentChars);
  return row;
}

// The reuse of an old refresh token: the whole session ends.
Rotation reused(core::Context& ctx, const http::Request& request, const db::SessionRow& row) {
  db::WebhookData data = db::user_data(row.table, row.user_id, "");
  data.session_id = row.id;
  data.reason = "reuse";
  webhooks::change_with_event(ctx.db, row.site_id, "session.revoked", data,
                              [&] { return db::SessionRepo(ctx.db).revoke(row.id, ctx.clock.now(), "reuse"); });
  metrics::count(metrics::Counter::kSessionReuses);
  metrics::count(metrics::Counter::kSessionRevocations);
  audit(ctx, request, "refresh_reuse", row.table, row.user_id, row.site_id, "session " + row.id);
  core::LogLine("warn", "refresh_token_reused")
      .str("request_id", request.request_id)
      .str("session", row.id)
      .str("table", row.table)
      .num("user_id", row.user_id)
      .emit();
  return {RotateOutcome::kReused, {}};
}

// The rotation's one statement (SessionRepo::rotate), counted when it moved the session.
bool rotate_row(core::Context& ctx, const http::Request& request, const db::SessionClaim& claim, bool oauth_grant_ok,
                const db::UserHold* user) {
  const long long now = ctx.clock.now();
  const std::string agent = core::utf8_clean(request.user_agent(), kUserAgentChars);
  if (!db::SessionRepo(ctx.db).rotate(claim, now, now + ctx.config.auth.refresh_ttl, request.remote_addr.substr(0, 45),
                                      agent, oauth_grant_ok, user)) {
    return false;
  }
  metrics::count(metrics::Counter::kSessionRefreshes);
  return true;
}

}  // namespace

bool is_session_id(std::string_view id) {
  if (id.size() != kSessionIdChars) return false;
  for (char c : id) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

SessionTicket open_session(core::Context& ctx, const http::Request& request, const db::User& user,
                           const std::string& table, long long site_id, const SignIn& sign_in) {
  db::SessionRow row = new_row(ctx, request, user, table, site_id, sign_in);
  const Device device = device_of(ctx, request);
  row.device_key = device.key;
  // Asked before the insert: the new row would show the device itself.
  const auto new_device = new_device_site(ctx, row);
  db::WebhookData data = db::user_data(table, user.id, user.email);
  data.session_id = row.id;
  auto insert = [&] { return db::SessionRepo(ctx.db).insert(row); };
  if (sign_in.session_event) {
    webhooks::change_with_event(ctx.db, site_id, "session.created", data, insert);
  } else {
    // One statement, its own commit: three round trips fewer (docs/decisions.md,
    // issue 52); re-run, as a transaction would be, after a conflict.
    db::with_transaction_retry(ctx.db, insert);
  }
  metrics::count(metrics::Counter::kSessionsOpened);
  if (new_device) queue_new_device_mail(ctx, request, *new_device, user, row);
  return {row.id, row.generation, device.set_cookie};
}

bool rotate_current(core::Context& ctx, const http::Request& request, const db::SessionClaim& claim,
                    bool oauth_grant_ok, const db::UserHold& user) {
  try {
    return rotate_row(ctx, request, claim, oauth_grant_ok, &user);
  } catch (const std::exception& e) {
    // A connection that died while the worker idled (a node gone) is found
    // by this statement, the request's first. Whether it ran is unknown, so
    // it is not re-run here: the caller reads the user on a new connection
    // and rotate_session's UPDATE then either wins or finds the generation
    // moved (the grace). Anything else propagates.
    if (!db::is_connection_lost(db::sql_code(e))) throw;
    return false;
  }
}

Rotation rotate_session(core::Context& ctx, const http::Request& request, const std::string& sid, long long gen,
                        const std::string& table, long long user_id, bool oauth_grant_ok) {
  // A current token (nearly every refresh) is one statement: the UPDATE
  // checks everything the row would be read for. Only a miss reads it.
  if (rotate_row(ctx, request, {sid, table, user_id, gen}, oauth_grant_ok, nullptr)) {
    return {RotateOutcome::kRotated, {sid, gen + 1}};
  }
  db::SessionRepo repo(ctx.db);
  const long long now = ctx.clock.now();
  auto row = repo.find_with_grant(sid);
  if (!row) return {RotateOutcome::kRevoked, {}};
  if (row->table != table || row->user_id != user_id) return {RotateOutcome::kMismatch, {}};
  if (row->revoked_at || row->expires_at <= now) return {RotateOutcome::kRevoked, {}};
  // A client's session is the client's: refreshed where the client proves
  // who it is, never by whoever holds its refresh token (nor ended by it
  // as a reuse here).
  if (!oauth_grant_ok && row->oauth_grant) return {RotateOutcome::kOAuthGrant, {}};
  // The UPDATE missed with the row as read: another refresh of the same
  // token won (here or on another host), so this token is now the previous
  // one, or it is older still. A generation the row has not reached is
  // made up. The row's own cannot have missed (nothing moves a generation
  // back), and fails closed.
  if (gen > row->generation) return {RotateOutcome::kMismatch, {}};
  if (gen == row->generation) return {RotateOutcome::kRevoked, {}};
  if (gen == row->generation - 1 && now - row->rotated_at <= ctx.config.tokens.refresh_reuse_seconds) {
    metrics::count(metrics::Counter::kSessionRefreshes);
    return {RotateOutcome::kGrace, {sid, row->generation}};
  }
  return reused(ctx, request, *row);
}

Rotation adopt_legacy_token(core::Context& ctx, const http::Request& request, const std::string& jti,
                            const db::User& user, const std::string& table, long long site_id, const SignIn& sign_in) {
  db::SessionRepo repo(ctx.db);
  db::SessionRow row = new_row(ctx, request, user, table, site_id, sign_in);
  if (!jti.empty() && repo.insert(row, jti)) {
    metrics::count(metrics::Counter::kSessionsOpened);
    return {RotateOutcome::kRotated, {row.id, row.generation}};
  }
  auto opened = jti.empty() ? std::nullopt : repo.find_legacy(jti);
  if (!opened) return {RotateOutcome::kRevoked, {}};
  return reused(ctx, request, *opened);
}

int end_sessions(core::Context& ctx, const std::string& table, long long user_id, const std::string& reason,
                 const std::string& keep_sid) {
  const db::SessionScope scope{table, user_id, keep_sid};
  const int ended = webhooks::atomically(ctx.db, [&] {
    // An address change asked for before this event does not outlive it: a
    // session that may have been an intruder's, or a password that was.
    db::AccountRepo(ctx.db).cancel_pending_changes(table, user_id, ctx.clock.now());
    db::WebhookRepo(ctx.db).enqueue_sessions_revoked(scope, reason);
    return db::SessionRepo(ctx.db).revoke_user(scope, ctx.clock.now(), reason);
  });
  for (int i = 0; i < ended; ++i) metrics::count(metrics::Counter::kSessionRevocations);
  return ended;
}

bool end_session(core::Context& ctx, const std::string& table, long long user_id, const std::string& sid,
                 const std::string& reason) {
  if (!is_session_id(sid)) return false;
  db::SessionRepo repo(ctx.db);
  auto row = repo.find(sid);
  if (!row || row->table != table || row->user_id != user_id) return false;
  db::WebhookData data = db::user_data(table, user_id, "");
  data.session_id = sid;
  data.reason = reason;
  if (!webhooks::change_with_event(ctx.db, row->site_id, "session.revoked", data,
                                   [&] { return repo.revoke(sid, ctx.clock.now(), reason); })) {
    return false;
  }
  metrics::count(metrics::Counter::kSessionRevocations);
  return true;
}

}  // namespace svc::auth
