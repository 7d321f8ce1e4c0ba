#include "admin/user_commands.hpp"

#include <cstdio>
#include <iostream>

#include "config/config.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "db/user_repo.hpp"

namespace svc::admin {

int cmd_user_create(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "first", "last", "role", "mobile", "table"});
  auto config = config::load_config(config_path);
  auto table = db::allowlisted(args.get("table").value_or("svc_users"), config.auth.tables);
  if (!table) throw UsageError("--table must be one of [auth] tables");
  std::string password;
  std::getline(std::cin, password);
  if (password.empty()) throw UsageError("user create reads the password from standard input");
  crypto::Argon2PasswordHasher hasher(
      {config.auth.argon2_opslimit, static_cast<size_t>(config.auth.argon2_memlimit)}, "");
  db::Database db(config.database);
  db::NewUser u;
  u.email = args.required("email");
  u.password_hash = hasher.hash(password);
  u.first_name = args.get("first").value_or("");
  u.last_name = args.get("last").value_or("");
  u.role = args.get("role").value_or("user");
  u.mobile = args.get("mobile").value_or("");
  auto id = db::UserRepo(db, *table).insert(u);
  if (!id) throw std::runtime_error("a user with e-mail " + u.email + " already exists");
  std::printf("%lld\n", *id);
  return 0;
}

}  // namespace svc::admin
