#include "admin/command_env.hpp"

#include <iostream>
#include <stdexcept>

#include "admin/args.hpp"
#include "crypto/password_hasher.hpp"

namespace svc::admin {

CommandEnv::CommandEnv(const std::string& config_path)
    : config(config::load_config(config_path)), db(config.database) {}

db::Site CommandEnv::site(long long id) {
  auto found = db::SiteRepo(db).find(id);
  if (!found) throw std::runtime_error("no site with id " + std::to_string(id));
  return *found;
}

std::string CommandEnv::hash_password_from_stdin(const std::string& command) const {
  std::string password;
  std::getline(std::cin, password);
  if (password.empty()) throw UsageError(command + " reads the password from standard input");
  crypto::Argon2PasswordHasher hasher({config.auth.argon2_opslimit, static_cast<size_t>(config.auth.argon2_memlimit)},
                                      "");
  return hasher.hash(password);
}

NamedUser named_user(const Args& args, CommandEnv& env) {
  auto table = db::allowlisted(args.get("table").value_or(env.config.auth.tables.front()), env.config.auth.tables);
  if (!table) throw UsageError("--table must be one of [auth] tables");
  const std::string email = args.required("email");
  auto user = db::UserRepo(env.db, *table).find_by_email(email);
  if (!user) throw std::runtime_error("no user with e-mail " + email + " in " + table->str());
  return {*table, *user};
}

}  // namespace svc::admin
