#pragma once

#include <memory>

#include "auth/lookup/folder_cache.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "auth/user_cache.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/context.hpp"
#include "core/random.hpp"
#include "crypto/breached_list.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "http/site_cache.hpp"
#include "messaging/template_cache.hpp"
#include "oidc/client_cache.hpp"
#include "push/push_client.hpp"
#include "sms/sms_gateway.hpp"

namespace svc::app {

// The production implementations behind Context, built from configuration.
// One per process, created after fork (it owns the database connections).
class Services {
 public:
  explicit Services(const config::Config& config);
  core::Context& context() { return context_; }

 private:
  const config::Config& config_;
  db::Database db_;
  std::unique_ptr<db::Database> merge_db_;
  core::SystemClock clock_;
  core::SystemRandom random_;
  crypto::Argon2PasswordHasher hasher_;
  std::unique_ptr<sms::SmsGateway> sms_;
  push::CurlPushClient push_;
  http::SiteCache site_cache_;
  auth::UserCache user_cache_;
  messaging::TemplateCache template_cache_;
  auth::SigningKeyCache signing_keys_;
  core::Context context_;
  auth::FolderCache folder_cache_;
  crypto::BreachedList breached_;
  oidc::ClientCache client_cache_;
};

}  // namespace svc::app
