#pragma once
// What an svc-admin command opens first: the configuration, the database it
// names, and what commands derive from them (a site, a password hash).

#include <string>
#include <vector>

#include "admin/args.hpp"
#include "config/config.hpp"
#include "db/database.hpp"
#include "db/site_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"

namespace svc::admin {

// The configuration a command runs with and the database it names. Usage:
//   CommandEnv env(config_path);
//   const db::Site site = env.site(args.required_integer("site"));
struct CommandEnv {
  // Reads the configuration at config_path (throws what config::load_config
  // throws); the database connection is made on first use.
  explicit CommandEnv(const std::string& config_path);

  // The site with this id; std::runtime_error "no site with id N" when there
  // is none.
  db::Site site(long long id);

  // Reads a password (one line) from standard input and returns its Argon2id
  // hash at the [auth] cost; UsageError "COMMAND reads the password from
  // standard input" when the line is empty.
  std::string hash_password_from_stdin(const std::string& command) const;

  config::Config config;
  db::Database db;
};

// The user a command names: --email E in --table T (default: the first of
// [auth] tables), in the user pool of --site N (design "User pools").
// Without --site the address must be in one pool only. UsageError for a
// table not in [auth] tables or an address in several pools (the message
// names their sites); std::runtime_error "no user with e-mail E in T" when
// there is none, or "no site with id N".
struct NamedUser {
  db::TableName table;
  db::User user;
};
NamedUser named_user(const Args& args, CommandEnv& env);

// "site 4" or "sites 3, 5": ids as a command's output names them.
std::string site_ids(const std::vector<long long>& ids);

// The user pool of --site N (its site must exist), or the default pool
// when the command names no site.
long long site_pool(const Args& args, CommandEnv& env);

}  // namespace svc::admin
