#pragma once
// A core::Context whose database is unreachable (a unix socket that does not
// exist), for driving http::dispatch without a stack: requests the dispatcher
// or a handler's validation refuses get their real reply; anything that gets
// as far as the database ends in the generic 500 of the one catch site.
// Shared by tests/unit/http/dispatch_test.cpp and tests/fuzz/dispatch_fuzz.cpp.
// REQUIRES: sodium_init() has run.

#include <string>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/context.hpp"
#include "core/random.hpp"
#include "crypto/encoding.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "push/push_client.hpp"
#include "sms/sms_gateway.hpp"

namespace svc::testing {

inline config::Config offline_config() {
  config::IniValues v;
  v["database.user"] = "nobody";
  v["database.socket"] = "/nonexistent/svc-offline.sock";
  v["database.connect_timeout"] = "1";
  v["keys.jwt_kid"] = "offline";
  const std::string key = crypto::base64url_encode(std::string(32, 'k'));
  for (const char* k : {"keys.jwt_secret", "keys.id_key", "keys.sms_key", "keys.reset_key", "keys.signing_kek"})
    v[k] = key;
  v["auth.argon2_opslimit"] = "1";
  v["auth.argon2_memlimit"] = "8192";
  v["auth.allow_weak_hashing"] = "true";
  return config::parse_config(v, "offline");
}

class NoSms final : public sms::SmsGateway {
 public:
  sms::SmsResult send(const std::string&, const std::string&) override { return {false, "offline"}; }
};

class NoPush final : public push::PushClient {
 public:
  push::PushResult send(const push::PushRequest&) override { return {push::PushOutcome::NetworkError, 0, "offline"}; }
};

// Owns every part the Context refers to; not copyable or movable (ctx points
// into it).
struct OfflineContext {
  config::Config config = offline_config();
  db::Database db{config.database};
  core::SystemClock clock;
  core::SystemRandom random;
  crypto::Argon2PasswordHasher hasher{crypto::Argon2Params{1, 8192}, ""};
  NoSms sms;
  NoPush push;
  core::Context ctx{config, db, nullptr, clock, random, hasher, sms, push, nullptr};

  OfflineContext() = default;
  OfflineContext(const OfflineContext&) = delete;
  OfflineContext& operator=(const OfflineContext&) = delete;
};

}  // namespace svc::testing
