#include "app/services.hpp"

#include <algorithm>

namespace svc::app {

Services::Services(const config::Config& config)
    : config_(config),
      db_(config.database),
      merge_db_(config.merge.configured() ? std::make_unique<db::Database>(config.merge) : nullptr),
      hasher_(crypto::Argon2Params{config.auth.argon2_opslimit, static_cast<size_t>(config.auth.argon2_memlimit)},
              config.keys.legacy_password_key),
      sms_(sms::make_sms_gateway(config.sms)),
      // The connect timeout never exceeds the total one ([push] docs).
      push_(push::PushOptions{config.push.allow_insecure_endpoints,
                              std::min(config.push.connect_timeout_ms, config.push.timeout_ms), config.push.timeout_ms,
                              config.push.allowed_ports}),
      site_cache_(config.server.site_cache_seconds),
      user_cache_(config.auth.user_cache_seconds),
      template_cache_(config.server.template_cache_seconds),
      signing_keys_(config.tokens.key_cache_seconds),
      context_{config_, db_,   merge_db_.get(), clock_,       random_,          hasher_,
               *sms_,   push_, &site_cache_,    &user_cache_, &template_cache_, &signing_keys_},
      folder_cache_(config.auth.user_cache_seconds),
      breached_(config.auth.breached_list),
      client_cache_(config.server.site_cache_seconds) {
  context_.folder_cache = &folder_cache_;
  context_.breached = &breached_;
  context_.client_cache = &client_cache_;
}

}  // namespace svc::app
