#include "admin/user_commands.hpp"

#include <cstdio>

#include "admin/command_env.hpp"
#include "db/user_repo.hpp"

namespace svc::admin {

int cmd_user_create(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "first", "last", "role", "mobile", "table"});
  CommandEnv env(config_path);
  auto table = db::allowlisted(args.get("table").value_or("svc_users"), env.config.auth.tables);
  if (!table) throw UsageError("--table must be one of [auth] tables");
  db::NewUser u;
  u.email = args.required("email");
  u.password_hash = env.hash_password_from_stdin("user create");
  u.first_name = args.get("first").value_or("");
  u.last_name = args.get("last").value_or("");
  u.role = args.get("role").value_or("user");
  u.mobile = args.get("mobile").value_or("");
  auto id = db::UserRepo(env.db, *table).insert(u);
  if (!id) throw std::runtime_error("a user with e-mail " + u.email + " already exists");
  std::printf("%lld\n", *id);
  return 0;
}

}  // namespace svc::admin
