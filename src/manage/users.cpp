#include "manage/users.hpp"

#include <algorithm>

#include "auth/session/sessions.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "db/mfa_repo.hpp"
#include "http/api_error.hpp"
#include "manage/audit.hpp"
#include "webhooks/events.hpp"

namespace svc::manage {
namespace {

std::string target_of(const db::TableName& table, long long user_id) {
  return "user " + std::to_string(user_id) + (table.str() == "svc_users" ? "" : " in " + table.str());
}

}  // namespace

db::TableName users_table(core::Context& ctx, const std::optional<std::string>& name) {
  const auto& tables = ctx.config.auth.tables;
  auto table = db::allowlisted(name.value_or(tables.front()), tables);
  if (!table) throw http::ApiError::validation("table", "table is not one of the service's user tables");
  return *table;
}

Page<db::User> list_users(core::Context& ctx, const Actor& actor, const db::TableName& table, const std::string& prefix,
                          const std::string& cursor, int limit) {
  const std::string kind = "users " + table.str() + " " + prefix;
  const std::string after = read_cursor(ctx, kind, actor.site_id, cursor);
  Page<db::User> page;
  page.rows = db::UserRepo(ctx.db, table, actor.pool_id).page_by_email(prefix, after, limit + 1);
  if (static_cast<int>(page.rows.size()) > limit) {
    page.rows.resize(limit);
    page.next_cursor = make_cursor(ctx, kind, actor.site_id, page.rows.back().email);
  }
  return page;
}

db::User pool_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  auto user = db::UserRepo(ctx.db, table, actor.pool_id).find_by_id(user_id);
  if (!user || user->pool_id != actor.pool_id) throw http::ApiError::failed(404, "User not found");
  return *user;
}

UserDetail show_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  UserDetail d;
  d.user = pool_user(ctx, actor, table, user_id);
  d.user.password.clear();
  db::MfaRepo mfa(ctx.db);
  d.totp = mfa.has_confirmed_factor(table.str(), user_id);
  d.recovery_codes_left = d.totp ? mfa.unused_recovery_codes(table.str(), user_id) : 0;
  d.passkeys = db::PasskeyRepo(ctx.db).list(actor.site_id, table.str(), user_id);
  for (auto& key : d.passkeys) key.public_key.clear();
  d.sessions = db::SessionRepo(ctx.db).open_sessions(table.str(), user_id, ctx.clock.now());
  for (const auto& s : d.sessions) d.last_sign_in = std::max(d.last_sign_in, s.auth_time);
  return d;
}

db::User set_user_active(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id,
                         bool active) {
  require_role(actor, Role::kAdmin);
  db::User user = pool_user(ctx, actor, table, user_id);
  // The flag, the sessions, the audit row and the event commit together.
  webhooks::atomically(ctx.db, [&] {
    const bool changed = user.active != active;
    if (changed) db::UserRepo(ctx.db, table, actor.pool_id).set_active(user_id, active);
    const int ended = active ? 0 : auth::end_sessions(ctx, table.str(), user_id, "disabled");
    audit(ctx, actor, active ? "users.enable" : "users.disable", target_of(table, user_id),
          active ? "" : std::to_string(ended) + " session(s) ended");
    if (changed) {
      webhooks::enqueue(ctx.db, actor.site_id, active ? "user.enabled" : "user.disabled",
                        db::user_data(table.str(), user_id, user.email));
    }
    return true;
  });
  user.active = active;
  return user;
}

int end_user_sessions(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  require_role(actor, Role::kAdmin);
  pool_user(ctx, actor, table, user_id);
  const int ended = webhooks::atomically(ctx.db, [&] {
    const int n = auth::end_sessions(ctx, table.str(), user_id, "admin");
    audit(ctx, actor, "users.sessions_end", target_of(table, user_id), std::to_string(n) + " session(s) ended");
    return n;
  });
  return ended;
}

}  // namespace svc::manage
