#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/context.hpp"
#include "core/random.hpp"
#include "crypto/password_hasher.hpp"
#include "db/database.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "push/push_client.hpp"
#include "sms/sms_gateway.hpp"

namespace svc::testing {

// Counts every verification (real or dummy) and hash; delegates to Argon2id
// with the cheapest parameters so tests stay fast. `argon2_work` counts the
// calls that cost one Argon2id computation (hash, dummy_verify, verify of an
// Argon2id hash whatever its parameters; bcrypt and legacy AES checks do not
// count): what a caller that must spend equal time on every outcome has to
// keep equal.
class CountingHasher final : public crypto::PasswordHasher {
 public:
  explicit CountingHasher(std::string legacy_key) : inner_(crypto::Argon2Params{1, 8192}, std::move(legacy_key)) {}
  std::string hash(std::string_view password) override {
    ++hashes;
    ++argon2_work;
    return inner_.hash(password);
  }
  crypto::VerifyResult verify(std::string_view stored, std::string_view password) override {
    ++verifications;
    if (stored.starts_with("$argon2id$")) ++argon2_work;
    return inner_.verify(stored, password);
  }
  void dummy_verify(std::string_view password) override {
    ++verifications;
    ++argon2_work;
    inner_.dummy_verify(password);
  }
  int verifications = 0;
  int hashes = 0;
  int argon2_work = 0;

 private:
  crypto::Argon2PasswordHasher inner_;
};

class FixedClock final : public core::Clock {
 public:
  long long now() const override { return value; }
  long long value = 1800000000;
};

// Answers the queued values in order, then repeats the last one (0 when none
// are queued), so a test knows the SMS code it will be sent.
class ScriptedRandom final : public core::Random {
 public:
  std::uint32_t uniform(std::uint32_t upper_bound) override {
    std::uint32_t v = values.empty() ? last : values.front();
    if (!values.empty()) values.erase(values.begin());
    last = v;
    return v % upper_bound;
  }
  std::vector<std::uint32_t> values;
  std::uint32_t last = 0;
};

class RecordingSms final : public sms::SmsGateway {
 public:
  sms::SmsResult send(const std::string& to, const std::string& text) override {
    last_to = to;
    last_text = text;
    ++sent;
    return {ok, ok ? "recorded" : "failing on purpose"};
  }
  std::string last_to, last_text;
  int sent = 0;
  bool ok = true;
};

class RecordingPush final : public push::PushClient {
 public:
  push::PushResult send(const push::PushRequest& r) override {
    last = r;
    ++sent;
    return {outcome, outcome == push::PushOutcome::Delivered ? 201L : 410L, "recorded"};
  }
  push::PushRequest last;
  int sent = 0;
  push::PushOutcome outcome = push::PushOutcome::Delivered;
};

// A Context on the running test stack's database ($SVC_STACK_DIR/svc.conf)
// with fakes for hashing, clock, randomness, SMS and push.
struct DbFixture {
  DbFixture();
  config::Config config;
  db::Database db;
  CountingHasher hasher;
  FixedClock clock;
  ScriptedRandom random;
  RecordingSms sms;
  RecordingPush push;
  core::Context ctx;

  // Builds a POST request with a JSON body and runs it through the dispatcher.
  http::Response post(const std::string& path, const std::string& json_body,
                      std::initializer_list<std::pair<std::string, std::string>> headers = {});
  // Runs trusted SQL on the fixture's connection (test setup only).
  void exec(const std::string& sql) { db.execute_trusted(sql); }
  long long count(const std::string& sql);
  // How much `action` raised a status counter of the fixture's own
  // connection, less what reading it adds: "QUESTIONS" counts the statements
  // the action ran, "COM_COMMIT" its transactions.
  template <typename Action>
  long long raised(const std::string& counter, Action action) {
    const long long first = session_status(counter);
    const long long own = session_status(counter) - first;
    const long long before = session_status(counter);
    action();
    return session_status(counter) - before - own;
  }
  long long session_status(const std::string& counter);
  // A reset token for the user of `table` whose stored hash is
  // `password_hash` (and address the user's now), issued at the fixed
  // clock's time, valid for an hour.
  std::string reset_token(long long user_id, const std::string& table, const std::string& password_hash);
};

// PHP's openssl_encrypt($pw, 'aes-256-cbc', $key, OPENSSL_RAW_DATA, $iv),
// base64(iv . ciphertext): the legacy "encrypted" password column.
std::string php_aes_password(const std::string& password, std::string key);

}  // namespace svc::testing
