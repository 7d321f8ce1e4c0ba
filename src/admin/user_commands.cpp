#include "admin/user_commands.hpp"

#include <cstdio>
#include <ctime>

#include "admin/command_env.hpp"
#include "app/services.hpp"
#include "auth/account/self_service.hpp"
#include "core/text.hpp"
#include "db/user_repo.hpp"
#include "manage/users.hpp"

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

namespace {

// The services (the Context the API's workers have) and the operator acting
// on --site N, or on the user's own pool when a command names no site.
struct OperatorEnv {
  OperatorEnv(const std::string& config_path, const Args& args)
      : env(config_path), services(env.config), ctx(services.context()) {
    const long long site = args.integer("site", 0);
    if (site != 0) {
      const db::Site named = env.site(site);  // an unknown site is an error, before anything changes
      actor = manage::Actor::operator_on(named.id, named.user_pool);
    }
    table = manage::users_table(ctx, args.get("table"));
  }
  CommandEnv env;
  app::Services services;
  core::Context& ctx;
  manage::Actor actor = manage::Actor::operator_on(0, db::kDefaultPool);
  db::TableName table = db::TableName::builtin_users();
};

// The user --email names (command_env.hpp named_user: without --site, the
// one pool that holds the address, whose users the operator then acts on).
long long named_user_id(OperatorEnv& o, const Args& args) {
  const NamedUser who = named_user(args, o.env);
  if (o.actor.site_id == 0) o.actor.pool_id = who.user.pool_id;
  return who.user.id;
}

}  // namespace

int cmd_users_mfa_reset(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "table", "site"});
  OperatorEnv o(config_path, args);
  const bool removed = manage::reset_second_factor(o.ctx, o.actor, o.table, named_user_id(o, args));
  std::printf("%s\n", removed ? "second factor removed" : "no active second factor (pending enrolment removed)");
  return 0;
}

int cmd_user_delete(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "site", "table"});
  OperatorEnv o(config_path, args);
  const long long id = named_user_id(o, args);
  manage::delete_user(o.ctx, o.actor, o.table, id);
  std::printf("user %lld deleted\n", id);
  return 0;
}

int cmd_user_invite(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "email", "first", "last", "role", "table"});
  args.required_integer("site");
  OperatorEnv o(config_path, args);
  manage::Invitation invitation;
  invitation.email = args.required("email");
  invitation.first_name = args.get("first").value_or("");
  invitation.last_name = args.get("last").value_or("");
  invitation.role = args.get("role").value_or("user");
  const db::User user = manage::invite_user(o.ctx, o.actor, o.table, invitation);
  std::printf("invitation mailed to %s\n%lld\n", user.email.c_str(), user.id);
  return 0;
}

namespace {

// user reset-password / resend-verification: one mail to the user --email
// names in the pool of --site N.
int mail_user(const Args& args, const std::string& config_path, const char* what,
              void (*send)(core::Context&, const manage::Actor&, const db::TableName&, long long)) {
  args.allow_only({"site", "email", "table"});
  args.required_integer("site");
  OperatorEnv o(config_path, args);
  send(o.ctx, o.actor, o.table, named_user_id(o, args));
  std::printf("%s queued for %s\n", what, args.required("email").c_str());
  return 0;
}

}  // namespace

int cmd_user_reset_password(const Args& args, const std::string& config_path) {
  return mail_user(args, config_path, "reset mail", manage::send_password_reset);
}

int cmd_user_resend_verification(const Args& args, const std::string& config_path) {
  return mail_user(args, config_path, "verification mail", manage::resend_verification);
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
