#pragma once
// What svc-admin's commands over a site-management service (src/manage/)
// open: the configuration, the services (the same Context the API's
// workers have) and the operator acting on a site.

#include <string>
#include <utility>
#include <vector>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "app/services.hpp"
#include "core/clock.hpp"
#include "http/api_error.hpp"
#include "manage/actor.hpp"

namespace svc::admin {

struct OperatorEnv {
  explicit OperatorEnv(const std::string& config_path)
      : env(config_path), services(env.config), ctx(services.context()) {}
  // The operator on site `site_id` (std::runtime_error "no site with id N").
  manage::Actor on_site(long long site_id) {
    const db::Site site = env.site(site_id);
    return manage::Actor::operator_on(site.id, site.user_pool);
  }
  CommandEnv env;
  app::Services services;
  core::Context& ctx;
};

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
