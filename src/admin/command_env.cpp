#include "admin/command_env.hpp"

#include <iostream>
#include <stdexcept>

#include "admin/args.hpp"
#include "core/text.hpp"
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

long long site_pool(const Args& args, CommandEnv& env) {
  const long long site = args.integer("site", 0);
  return site == 0 ? db::kDefaultPool : env.site(site).user_pool;
}

std::string site_ids(const std::vector<long long>& ids) {
  std::vector<std::string> names;
  for (long long id : ids) names.push_back(std::to_string(id));
  return (ids.size() == 1 ? "site " : "sites ") + core::join(names, ", ");
}

namespace {

// "pool 1 (sites 1, 2); pool 5 (site 4)": where an address was found.
std::string pools_and_sites(CommandEnv& env, const std::vector<long long>& pools) {
  db::SiteRepo sites(env.db);
  std::vector<std::string> out;
  for (long long pool : pools) {
    const auto ids = sites.sites_in_pool(pool);
    out.push_back("pool " + std::to_string(pool) + " (" + (ids.empty() ? "no site" : site_ids(ids)) + ")");
  }
  return core::join(out, "; ");
}

}  // namespace

NamedUser named_user(const Args& args, CommandEnv& env) {
  auto table = db::allowlisted(args.get("table").value_or(env.config.auth.tables.front()), env.config.auth.tables);
  if (!table) throw UsageError("--table must be one of [auth] tables");
  const std::string email = args.required("email");
  long long pool = site_pool(args, env);
  if (!args.get("site")) {
    const auto pools = db::UserRepo(env.db, *table).pools_with(email);
    if (pools.size() > 1) {
      throw UsageError("e-mail " + email + " is in " + std::to_string(pools.size()) +
                       " user pools: " + pools_and_sites(env, pools) + "; choose one with --site N");
    }
    if (pools.size() == 1) pool = pools.front();
  }
  auto user = db::UserRepo(env.db, *table, pool).find_by_email(email);
  if (!user) throw std::runtime_error("no user with e-mail " + email + " in " + table->str());
  return {*table, *user};
}

}  // namespace svc::admin
