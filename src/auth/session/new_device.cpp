#include "auth/session/new_device.hpp"

#include "auth/account_mail.hpp"
#include "auth/auth_common.hpp"
#include "auth/session/device.hpp"
#include "auth/session/sessions.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/jwt.hpp"
#include "db/table_name.hpp"
#include "http/site_cache.hpp"
#include "messaging/outbox.hpp"

namespace svc::auth {
namespace {

crypto::JwtKeyRing not_me_token_keys(const core::Context& ctx) {
  return crypto::derive_key_ring(ctx.config.keys.jwt, "svc-not-me-token-key");
}

std::string not_me_token(core::Context& ctx, const db::User& user, const db::SessionRow& row) {
  crypto::Claims c = account_token_claims(ctx, "not-me", &user, row.table, row.site_id, kNotMeTtlSeconds);
  c.sid = row.id;
  return crypto::jwt_sign(c, not_me_token_keys(ctx).current);
}

// The page's address with the token and, for the page to show, what the
// mail says (unsigned: the page only displays them; the button's effect
// rests on the token alone). All in the fragment, which is never sent.
std::string not_me_link(const std::string& page, const std::string& token, const db::SessionRow& row) {
  return page + "#token=" + token + "&time=" + std::to_string(row.created_at) +
         "&device=" + core::percent_encode(device_name(row.user_agent)) + "&network=" + core::percent_encode(row.ip);
}

}  // namespace

std::optional<db::Site> new_device_site(core::Context& ctx, const db::SessionRow& row) {
  if (row.site_id <= 0) return std::nullopt;
  auto site = http::find_site(ctx, row.site_id);
  if (!site || !site->new_device_mail || !site->active || site->disable_email) return std::nullopt;
  const auto seen =
      db::SessionRepo(ctx.db).seen_device(row.table, row.user_id, row.device_key, row.created_at - kKnownDeviceSeconds);
  if (!seen || *seen) return std::nullopt;  // a first sign-in, or a known device
  return site;
}

void queue_new_device_mail(core::Context& ctx, const http::Request& request, const db::Site& site, const db::User& user,
                           const db::SessionRow& row) {
  const std::string& page = ctx.config.auth.not_me_page;
  if (page.empty()) {
    core::LogLine("error", "not_me_page_missing")
        .str("request_id", request.request_id)
        .str("detail", "set [auth] not_me_page (or reset_page) to send new-device mail")
        .emit();
    return;
  }
  auto table = db::allowlisted(row.table, ctx.config.auth.tables);
  const std::string locale = table ? db::UserRepo(ctx.db, *table).locale(user.id) : std::string();
  messaging::MergeValues values{{"time", core::format_utc(row.created_at, "%Y-%m-%d %H:%M UTC")},
                                {"device", device_name(row.user_agent)},
                                {"network", row.ip},
                                {"link", not_me_link(page, not_me_token(ctx, user, row), row)},
                                {"days", std::to_string(kNotMeTtlSeconds / 86400)}};
  messaging::enqueue(ctx, account_mail(ctx, request, site, "new-sign-in", user, std::move(values), locale));
  audit(ctx, request, "new_device_mail", row.table, user.id, site.id, "session " + row.id);
}

std::optional<NotMeClaim> verify_not_me_token(const core::Context& ctx, const std::string& token) {
  auto verified = crypto::jwt_verify(token, not_me_token_keys(ctx), "not-me", ctx.clock.now());
  if (!verified.ok()) return std::nullopt;
  const crypto::Claims& c = verified.claims;
  auto table = db::allowlisted(c.tbl, ctx.config.auth.tables);
  const long long user_id = core::parse_id(c.sub).value_or(0);
  if (!table || user_id <= 0 || !is_session_id(c.sid)) return std::nullopt;
  return NotMeClaim{table->str(), user_id, c.app, c.sid};
}

}  // namespace svc::auth
