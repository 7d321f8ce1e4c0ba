#pragma once

#include <memory>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/context.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "core/site_cache.hpp"
#include "push/push_client.hpp"
#include "sms/sms_gateway.hpp"

namespace svc::core {

// The production implementations behind Context, built from configuration.
// One per process, created after fork (it owns the database connections).
class Services {
 public:
  explicit Services(const config::Config& config);
  Context& context() { return context_; }

 private:
  const config::Config& config_;
  db::Database db_;
  std::unique_ptr<db::Database> merge_db_;
  SystemClock clock_;
  crypto::Argon2PasswordHasher hasher_;
  std::unique_ptr<sms::SmsGateway> sms_;
  push::CurlPushClient push_;
  SiteCache site_cache_;
  Context context_;
};

}  // namespace svc::core
