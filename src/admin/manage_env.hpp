#pragma once
// What svc-admin's commands over the site-management services (src/manage/)
// share: the services (the same Context the API's workers have), the
// operator acting on a site, and how a next page is announced.

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "admin/args.hpp"
#include "admin/command_env.hpp"
#include "app/services.hpp"
#include "http/api_error.hpp"
#include "manage/actor.hpp"
#include "manage/users.hpp"

namespace svc::admin {

// Whether a command must name --site N.
enum class SiteOption { kRequired, kOptional };

struct ManageEnv {
  // The operator on --site N (required unless kOptional: then, without it,
  // the default pool until the command finds the pool from a user), users of
  // --table T (default: the first of [auth] tables).
  ManageEnv(const std::string& config_path, const Args& args, SiteOption site = SiteOption::kRequired)
      : ManageEnv(config_path) {
    if (site == SiteOption::kRequired || args.get("site")) act_on(args.required_integer("site"));
    table = manage::users_table(ctx, args.get("table"));
  }
  // No site yet: act_on() names it (a command that finds it from a row).
  explicit ManageEnv(const std::string& config_path)
      : env(config_path), services(env.config), ctx(services.context()) {}

  // The operator on this site (also kept as `actor`); std::runtime_error
  // "no site with id N".
  const manage::Actor& act_on(long long site_id) {
    const db::Site site = env.site(site_id);
    actor = manage::Actor::operator_on(site.id, site.user_pool);
    return actor;
  }

  CommandEnv env;
  app::Services services;
  core::Context& ctx;
  manage::Actor actor = manage::Actor::operator_on(0, db::kDefaultPool);
  db::TableName table = db::TableName::builtin_users();
};

// The line that tells how to get the next page, when there is one.
inline void print_next(const std::string& cursor) {
  if (!cursor.empty()) std::printf("more: --cursor %s\n", cursor.c_str());
}

// Runs fn(); a refusal of the service for bad input (400) becomes a
// UsageError that names the command's options: each field of `options`
// ({"min_password_score", "min-password-score"}, longest field first when
// one holds another) is written "--option".
template <class Fn>
auto naming_options(const std::vector<std::pair<std::string, std::string>>& options, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const http::ApiError& e) {
    if (e.status() != 400) throw;
    std::string text = e.text();
    if (text.rfind("Validation error; ", 0) == 0) text.erase(0, 18);
    for (const auto& named : options) {
      // "field: field must be ..." -> "field must be ...".
      if (text.rfind(named.first + ": " + named.first, 0) == 0) text.erase(0, named.first.size() + 2);
    }
    for (const auto& [field, option] : options) {
      for (size_t at = text.find(field); at != std::string::npos; at = text.find(field, at + option.size() + 2)) {
        text.replace(at, field.size(), "--" + option);
      }
    }
    throw UsageError(text);
  }
}

}  // namespace svc::admin
