#include "admin/user_commands.hpp"

#include <cstdio>
#include <ctime>

#include "admin/command_env.hpp"
#include "app/services.hpp"
#include "auth/account/self_service.hpp"
#include "core/text.hpp"
#include "db/audit_repo.hpp"
#include "db/mfa_repo.hpp"
#include "db/user_repo.hpp"

namespace svc::admin {
namespace {

// --first / --last: a person's name, refused with control characters as
// sign-up refuses them (core::has_name_controls).
std::string name_option(const Args& args, const std::string& option) {
  std::string value = args.get(option).value_or("");
  if (core::has_name_controls(value)) throw UsageError("--" + option + " must not contain control characters");
  return value;
}

}  // namespace

int cmd_user_create(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "first", "last", "role", "mobile", "table", "verified", "site"});
  CommandEnv env(config_path);
  const long long pool = site_pool(args, env);
  auto table = db::allowlisted(args.get("table").value_or("svc_users"), env.config.auth.tables);
  if (!table) throw UsageError("--table must be one of [auth] tables");
  db::NewUser u;
  u.email = args.required("email");
  u.first_name = name_option(args, "first");
  u.last_name = name_option(args, "last");
  u.password_hash = env.hash_password_from_stdin("user create");
  u.role = args.get("role").value_or("user");
  u.mobile = args.get("mobile").value_or("");
  auto id = db::UserRepo(env.db, *table, pool).insert(u);
  if (!id) throw std::runtime_error("a user with e-mail " + u.email + " already exists in that user pool");
  // --verified: the operator vouches for the address (the user may enrol a
  // second factor or a passkey at once; docs/decisions.md, issue 36).
  if (args.flag("verified")) db::UserRepo(env.db, *table).prove_address(*id, std::time(nullptr));
  std::printf("%lld\n", *id);
  return 0;
}

int cmd_users_mfa_reset(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "table", "site"});
  CommandEnv env(config_path);
  const NamedUser who = named_user(args, env);
  const bool removed = db::MfaRepo(env.db).remove(who.table.str(), who.user.id);
  db::AuditEvent event;
  event.event = "mfa_reset";
  event.auth_table = who.table.str();
  event.user_id = who.user.id;
  event.detail = removed ? "svc-admin users mfa-reset" : "svc-admin users mfa-reset (no active factor)";
  db::AuditRepo(env.db).record(event);
  std::printf("%s\n", removed ? "second factor removed" : "no active second factor (pending enrolment removed)");
  return 0;
}

int cmd_user_delete(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "site", "table"});
  CommandEnv env(config_path);
  const long long site = args.integer("site", 0);
  if (site != 0) env.site(site);  // an unknown site is an error, before anything is deleted
  const NamedUser who = named_user(args, env);
  app::Services services(env.config);
  http::Request request;
  request.request_id = "svc-admin";
  auth::delete_account(request, services.context(), who.table, who.user, site, "operator");
  std::printf("user %lld deleted\n", who.user.id);
  return 0;
}

int cmd_user_export(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "table", "site"});
  CommandEnv env(config_path);
  const NamedUser who = named_user(args, env);
  app::Services services(env.config);
  std::printf("%s\n", auth::export_account(services.context(), who.table, who.user).c_str());
  return 0;
}

}  // namespace svc::admin
