#pragma once
// What svc-admin's commands over the site-management services (src/manage/)
// share: the services (the same Context the API's workers have), the
// operator acting on a site, and how a next page is announced.

#include <cstdio>
#include <string>

#include "admin/args.hpp"
#include "admin/command_env.hpp"
#include "app/services.hpp"
#include "manage/actor.hpp"
#include "manage/users.hpp"

namespace svc::admin {

struct ManageEnv {
  // The operator on --site N (required), users of --table T (default: the
  // first of [auth] tables).
  ManageEnv(const std::string& config_path, const Args& args) : ManageEnv(config_path) {
    act_on(args.required_integer("site"));
    table = manage::users_table(ctx, args.get("table"));
  }
  // No site yet: act_on() names it (a command that finds it from a row).
  explicit ManageEnv(const std::string& config_path)
      : env(config_path), services(env.config), ctx(services.context()) {}

  // The operator on this site; std::runtime_error "no site with id N".
  void act_on(long long site_id) {
    const db::Site site = env.site(site_id);
    actor = manage::Actor::operator_on(site.id, site.user_pool);
  }

  CommandEnv env;
  app::Services services;
  core::Context& ctx;
  manage::Actor actor;
  db::TableName table = db::TableName::builtin_users();
};

// The line that tells how to get the next page, when there is one.
inline void print_next(const std::string& cursor) {
  if (!cursor.empty()) std::printf("more: --cursor %s\n", cursor.c_str());
}

}  // namespace svc::admin
