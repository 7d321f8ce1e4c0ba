#include "manage/users.hpp"

#include <algorithm>
#include <vector>

#include "auth/account/self_service.hpp"
#include "auth/auth_common.hpp"
#include "auth/email/verification.hpp"
#include "auth/password/policy.hpp"
#include "auth/password/reset_service.hpp"
#include "auth/session/sessions.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "db/mfa_repo.hpp"
#include "db/site_admin_repo.hpp"
#include "db/site_repo.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"
#include "manage/audit.hpp"
#include "webhooks/events.hpp"

namespace svc::manage {
namespace {

std::string target_of(const db::TableName& table, long long user_id) {
  return "user " + std::to_string(user_id) + (table.str() == "svc_users" ? "" : " in " + table.str());
}

// The site's audit row; none when the operator named no site (site 0).
void site_audit(core::Context& ctx, const Actor& actor, const std::string& action, const db::TableName& table,
                long long user_id, const std::string& detail) {
  if (actor.site_id > 0) audit(ctx, actor, action, target_of(table, user_id), detail);
}

// What the account code records of a change (the audit row's IP and
// request id): the actor's, as a request would carry them.
http::Request request_of(const Actor& actor) {
  http::Request request;
  request.request_id = actor.request_id.empty() ? "svc-admin" : actor.request_id;
  request.remote_addr = actor.ip;
  return request;
}

// svc_audit_log's "by ..." of an account change a site's administrator or
// the operator made.
const char* changed_by(const Actor& actor) { return actor.is_operator() ? "operator" : "site admin"; }

http::ApiError conflict(const std::string& message) { return http::ApiError::failed(409, message); }

// The site a mail to one of its users goes from: 409 when it sends no
// e-mail (`nothing` says what cannot be sent). Also for a link to its reset
// page when `reset_page` (409 when it has none).
db::Site mail_site(core::Context& ctx, const Actor& actor, const std::string& nothing, bool reset_page) {
  auto site = db::SiteRepo(ctx.db).find(actor.site_id);
  if (!site) throw http::ApiError::failed(404, "Site not found");
  if (site->disable_email) throw conflict("E-mail is turned off for this site (disable_email): " + nothing);
  if (reset_page && !auth::has_reset_page(ctx, *site)) {
    throw conflict("The site has no reset URL to link to: " + nothing);
  }
  return *site;
}

// A user who administers this site is its owner's to delete or strip of a
// second factor, as its owner alone manages its administrators.
std::optional<db::SiteAdmin> require_rights_over(core::Context& ctx, const Actor& actor, const db::TableName& table,
                                                 long long user_id) {
  auto grant = actor.site_id > 0 ? db::SiteAdminRepo(ctx.db).find(actor.site_id, table.str(), user_id) : std::nullopt;
  if (grant) require_role(actor, Role::kOwner);
  return grant;
}

void check_name(std::vector<http::FieldError>& errors, const char* field, const std::string& value) {
  if (auth::utf8_length(value) > auth::kMaxNameChars) {
    errors.push_back({field, std::string(field) + " must be at most 50 characters"});
  } else if (core::has_name_controls(value)) {
    errors.push_back({field, std::string(field) + " must not contain control characters"});
  }
}

bool is_role_name(const std::string& role) {
  return !role.empty() && role.size() <= 64 && std::all_of(role.begin(), role.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

void check_invitation(const Invitation& invitation) {
  std::vector<http::FieldError> errors;
  if (invitation.email.size() > 254 || !http::is_valid_email(invitation.email)) {
    errors.push_back({"email", "email must be a valid e-mail address"});
  }
  check_name(errors, "first_name", invitation.first_name);
  check_name(errors, "last_name", invitation.last_name);
  if (!is_role_name(invitation.role)) {
    errors.push_back({"role", "role must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-'"});
  }
  if (!errors.empty()) throw http::ApiError::validation(errors);
}

http::ApiError too_many() { return http::ApiError::failed(429, "Too many requests"); }

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
  return paged(ctx, kind, actor.site_id,
               db::UserRepo(ctx.db, table, actor.pool_id).page_by_email(prefix, after, limit + 1), limit,
               [](const db::User& last) { return last.email; });
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

db::User invite_user(core::Context& ctx, const Actor& actor, const db::TableName& table, const Invitation& invitation) {
  require_role(actor, Role::kAdmin);
  check_invitation(invitation);
  const db::Site site = mail_site(ctx, actor, "no invitation can be sent", true);
  db::NewUser fresh;
  fresh.email = invitation.email;
  fresh.password_hash = std::string(auth::kInvitedPassword);
  fresh.first_name = invitation.first_name;
  fresh.last_name = invitation.last_name;
  fresh.role = invitation.role;
  const http::Request request = request_of(actor);
  db::UserRepo users(ctx.db, table, actor.pool_id);
  auto user = webhooks::atomically(ctx.db, [&]() -> std::optional<db::User> {
    auto id = users.insert(fresh);
    if (!id) return std::nullopt;  // taken: nothing was written
    auto created = users.find_by_id(*id);
    auth::record_user_version(ctx, table, *created, "insert");
    webhooks::enqueue(ctx.db, site.id, "user.created", db::user_data(table.str(), *id, created->email));
    auth::queue_invitation(ctx, request, site, table, *created);
    audit(ctx, actor, "users.create", target_of(table, *id), "invitation mailed, role " + invitation.role);
    return created;
  });
  if (!user) throw conflict("User with this email already exists");
  user->password.clear();
  return *user;
}

void delete_user(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  require_role(actor, Role::kAdmin);
  const db::User user = pool_user(ctx, actor, table, user_id);
  auto grant = require_rights_over(ctx, actor, table, user_id);
  if (grant && grant->role == "owner" && db::SiteAdminRepo(ctx.db).count_owners(actor.site_id) <= 1) {
    throw conflict("The site's last owner cannot be deleted");
  }
  webhooks::atomically(ctx.db, [&] {
    auth::delete_account(request_of(actor), ctx, table, user, actor.site_id, changed_by(actor));
    site_audit(ctx, actor, "users.delete", table, user_id, "");
    return true;
  });
}

bool reset_second_factor(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  require_role(actor, Role::kAdmin);
  const db::User user = pool_user(ctx, actor, table, user_id);
  require_rights_over(ctx, actor, table, user_id);
  return webhooks::atomically(ctx.db, [&] {
    const bool removed = db::MfaRepo(ctx.db).remove(table.str(), user_id);
    const std::string detail = removed ? "second factor removed" : "no active second factor";
    auth::audit(ctx, request_of(actor), "mfa_reset", table.str(), user_id, actor.site_id,
                std::string("by ") + changed_by(actor) + (removed ? "" : " (no active factor)"));
    if (removed) {
      webhooks::enqueue(ctx.db, actor.site_id, "user.mfa_disabled", db::user_data(table.str(), user_id, user.email));
    }
    site_audit(ctx, actor, "users.mfa_reset", table, user_id, detail);
    return removed;
  });
}

void send_password_reset(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  require_role(actor, Role::kAdmin);
  const db::User user = pool_user(ctx, actor, table, user_id);
  const db::Site site = mail_site(ctx, actor, "no reset mail can be sent", true);
  if (!user.active) throw conflict("User is disabled");
  if (!auth::may_reset(ctx, user)) throw conflict("User has no password to reset");
  if (!auth::request_password_reset(ctx, request_of(actor), user.email, site.id, table, std::nullopt)) {
    throw too_many();  // the reset mails' daily cap
  }
  audit(ctx, actor, "users.password_reset", target_of(table, user_id), "reset mail queued");
}

void resend_verification(core::Context& ctx, const Actor& actor, const db::TableName& table, long long user_id) {
  require_role(actor, Role::kAdmin);
  const db::User user = pool_user(ctx, actor, table, user_id);
  const db::Site site = mail_site(ctx, actor, "no verification mail can be sent", false);
  if (user.email_verified) throw conflict("The address is verified already");
  if (!user.active) throw conflict("User is disabled");
  if (!site.verify_email) throw conflict("The site does not verify addresses (verify-email is off)");
  if (ctx.config.auth.verify_page.empty()) throw conflict("No verification page is configured");
  if (!auth::resend_verification(ctx, request_of(actor), user.email, site.id, table)) throw too_many();
  audit(ctx, actor, "users.verification_resend", target_of(table, user_id), "verification mail queued");
}

}  // namespace svc::manage
