#include "auth/auth_common.hpp"

#include <sodium.h>

#include "auth/app_id.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "db/version_repo.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"

namespace svc::auth {

std::optional<db::TableName> requested_auth_table(http::Fields& fields, const core::Context& ctx) {
  auto requested = fields.optional_string("authTable", 64);
  if (!requested || fields.has_error("authTable")) return std::nullopt;
  auto table = db::allowlisted(*requested, ctx.config.auth.tables);
  if (!table) fields.add("authTable", "authTable is not an allowed table");
  return table;
}

std::optional<db::TableName> auth_table(http::Fields& fields, const core::Context& ctx) {
  auto table = requested_auth_table(fields, ctx);
  if (table || fields.has_error("authTable")) return table;
  const auto& allowed = ctx.config.auth.tables;
  table = db::allowlisted(allowed.empty() ? "" : allowed.front(), allowed);
  if (!table) fields.add("authTable", "authTable is not an allowed table");
  return table;
}

std::optional<db::TableName> signup_table(http::Fields& fields, const core::Context& ctx) {
  auto table = auth_table(fields, ctx);
  if (!table) return table;
  auto open = db::allowlisted(table->str(), ctx.config.auth.signup_tables);
  if (!open) fields.add("authTable", "authTable is not open for sign-up");
  return open;
}

std::optional<std::string> email_field(http::Fields& fields) {
  auto email = fields.required_string("email", 254);
  if (email && !http::is_valid_email(*email)) {
    fields.add("email", "email must be a valid e-mail address");
    return std::nullopt;
  }
  return email;
}

void record_user_version(core::Context& ctx, const db::TableName& table, const db::User& user, const char* action) {
  http::JsonWriter w;
  w.open()
      .kv("id", user.id)
      .kv("user_email", user.email)
      .kv("first_name", user.first_name)
      .kv("last_name", user.last_name)
      .kv("primary_role", user.role)
      .close();
  db::VersionRepo(ctx.db).record(table.str(), user.id, action, w.str());
}

std::string throttle_key(const std::string& email, long long pool) {
  std::string key = core::ascii_lower(email);
  if (pool == db::kDefaultPool) return key;
  unsigned char digest[16];
  crypto_generichash(digest, sizeof digest, reinterpret_cast<const unsigned char*>(key.data()), key.size(), nullptr, 0);
  return "pool " + std::to_string(pool) + ":" +
         crypto::hex_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

void audit(core::Context& ctx, const http::Request& request, std::string event, const std::string& table,
           long long user_id, long long site_id, std::string detail) {
  db::AuditEvent e;
  e.event = std::move(event);
  e.auth_table = table;
  e.user_id = user_id;
  e.site_id = site_id;
  // Read whether or not the row names a user: the same work either way.
  const long long pool = user_pool(ctx, site_id);
  if (user_id != 0) e.pool_id = pool;
  e.ip = core::utf8_clean(request.remote_addr, 64);
  e.user_agent = core::utf8_clean(request.user_agent(), 512);
  e.request_id = request.request_id;
  e.detail = std::move(detail);
  try {
    db::AuditRepo(ctx.db).record(e);
  } catch (const std::exception& ex) {
    // Losing an audit row must not turn a login into a 500; the log keeps it.
    core::LogLine("error", "audit_write_failed")
        .str("request_id", request.request_id)
        .str("audit", e.event)
        .str("error", ex.what())
        .emit();
  }
}

crypto::Claims account_token_claims(core::Context& ctx, const char* typ, const db::User* user, const std::string& table,
                                    long long site_id, long long ttl_seconds) {
  crypto::Claims c;
  c.typ = typ;
  c.sub = std::to_string(user ? user->id : 0);
  c.tbl = table;
  c.app = site_id;
  c.iat = ctx.clock.now();
  c.exp = c.iat + ttl_seconds;
  return c;
}

}  // namespace svc::auth
