#include "auth/mfa/bearer.hpp"

#include "auth/auth_common.hpp"
#include "auth/mfa/guard.hpp"
#include "auth/mfa/replies.hpp"
#include "auth/mfa/totp_factor.hpp"
#include "auth/session/sessions.hpp"
#include "auth/tokens/access_tokens.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "auth/user_cache.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "crypto/access_token.hpp"
#include "crypto/jwt.hpp"
#include "db/session_repo.hpp"
#include "db/throttle_repo.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {
namespace {

struct TokenSubject {
  std::string sub, tbl;
  long long app_id = 0;
  long long ver = 0;
  long long auth_time = 0;
  std::string sid;
  std::vector<std::string> amr;
};

// The legacy HS256 token has no audience to tell a site's from svc's (every
// holder of [keys] jwt can forge any): the access token serves.
std::optional<TokenSubject> legacy_subject(std::string_view token, core::Context& ctx) {
  auto verified = crypto::jwt_verify(token, ctx.config.keys.jwt, "access", ctx.clock.now());
  if (!verified.ok()) return std::nullopt;
  const crypto::Claims& c = verified.claims;
  return TokenSubject{c.sub, c.tbl, c.app, c.ver, c.auth_time, c.sid, c.amr};
}

// Only a token for svc itself: aud = [tokens] issuer (an account token, whose
// client_id names the site, or a token issued without an appID). A site's
// token (aud = its audience) is refused: its backend receives it.
std::optional<TokenSubject> access_subject(std::string_view token, core::Context& ctx) {
  if (ctx.config.tokens.legacy_hs256()) return legacy_subject(token, ctx);
  const std::string& issuer = ctx.config.tokens.issuer;
  auto keys = current_key_set(ctx);
  auto verified = crypto::verify_access_token(token, keys->published, issuer, issuer, ctx.clock.now());
  if (!verified.ok()) return std::nullopt;
  const crypto::AccessClaims& c = verified.claims;
  long long app_id = 0;
  if (!c.client_id.empty()) {
    auto id = core::parse_id(c.client_id);
    if (!id) return std::nullopt;
    app_id = *id;
  }
  return TokenSubject{c.sub, c.tbl, app_id, c.ver, c.auth_time, c.sid, c.amr};
}

// An account-security route does not take a token of an ended session,
// though backends may until its exp (docs/decisions.md "Sessions").
bool session_alive(core::Context& ctx, const TokenSubject& subject) {
  if (subject.sid.empty()) return true;  // issued before sessions
  auto row = db::SessionRepo(ctx.db).find(subject.sid);
  return row && !row->revoked_at && row->user_id == core::parse_id(subject.sub).value_or(0) &&
         row->table == subject.tbl;
}

}  // namespace

SignedInUser require_signed_in(const http::Request& request, core::Context& ctx) {
  return require_token_user(request, ctx, SessionCheck::kHere);
}

SignedInUser require_token_user(const http::Request& request, core::Context& ctx, SessionCheck session) {
  std::string_view header = request.header("authorization");
  std::optional<TokenSubject> subject;
  if (header.size() > 7 && core::ascii_lower(header.substr(0, 7)) == "bearer ") {
    subject = access_subject(header.substr(7), ctx);
  }
  auto table = subject ? db::allowlisted(subject->tbl, ctx.config.auth.tables) : std::nullopt;
  auto user_id = subject ? core::parse_id(subject->sub) : std::nullopt;
  std::optional<db::User> user;
  if (table && user_id) user = find_user_recent(ctx, *table, *user_id, subject->ver);
  if (!user || !user->active || user->token_version != subject->ver ||
      (session == SessionCheck::kHere && !session_alive(ctx, *subject))) {
    throw http::ApiError::failed(401, "Unauthorized");
  }
  return {std::move(*user), std::move(*table), subject->app_id, subject->auth_time, subject->sid, subject->amr};
}

void require_enrolment_allowed(const SignedInUser& me, core::Context& ctx) {
  if (!me.user.email_verified) throw http::ApiError::failed(403, "Email not verified");
  if (ctx.clock.now() - me.auth_time > kEnrolmentSignInAge) {
    throw http::ApiError::failed(401, "Recent sign-in required, log in again");
  }
}

std::string claim_own_attempt(core::Context& ctx, const SignedInUser& me) {
  const auto& cfg = ctx.config.auth;
  std::string key = throttle_key(me.user.email, me.user.pool_id);
  if (auto wait = db::ThrottleRepo(ctx.db).claim_attempt(me.table.str(), key, ctx.clock.now(), cfg.login_max_failures,
                                                         cfg.login_window)) {
    throw http::ApiError::too_many("Too many attempts", *wait);
  }
  return key;
}

void require_own_code(const http::Request& request, core::Context& ctx, const SignedInUser& me, const std::string& code,
                      bool confirming) {
  const std::string key = claim_own_attempt(ctx, me);
  MfaAnswer answer(ctx, me.table, me.user);
  if (!confirming) {  // a code of the confirmed factor counts toward its lock
    if (auto wait = answer.claim()) throw http::ApiError::too_many("Too many attempts", *wait);
  }
  if (!accept_totp(ctx, me.table.str(), me.user.id, code, confirming)) {
    audit(ctx, request, "mfa_code_failed", me.table.str(), me.user.id, me.app_id);
    answer.wrong(request, me.app_id);
    throw http::ApiError::failed(400, "Invalid code");
  }
  answer.take_back();
  db::ThrottleRepo(ctx.db).reset(me.table.str(), key);
}

http::Response recovery_codes_for_own_code(const http::Request& request, core::Context& ctx, bool confirming,
                                           const char* event, const char* detail, MfaChange change) {
  SignedInUser me = require_signed_in(request, ctx);
  if (confirming) require_enrolment_allowed(me, ctx);
  http::Fields fields(request.json);
  auto code = fields.required_string("code", 64);
  fields.throw_if_errors();
  require_own_code(request, ctx, me, *code, confirming);
  audit(ctx, request, event, me.table.str(), me.user.id, me.app_id, detail);
  queue_mfa_mail(ctx, request, me.app_id, me.table, me.user, change);
  // Turning the factor on ends every other session: they signed in without it.
  if (change == MfaChange::kEnabled) {
    end_sessions(ctx, me.table.str(), me.user.id, "mfa_enabled", me.sid);
    // After the change, not in its transaction: the code check that makes
    // the change also counts failed attempts, which must never roll back.
    webhooks::enqueue(ctx.db, me.app_id, "user.mfa_enabled", db::user_data(me.table.str(), me.user.id, me.user.email));
  }
  return recovery_codes_reply(issue_recovery_codes(ctx, me.table.str(), me.user.id));
}

}  // namespace svc::auth
