#pragma once

namespace svc::config {
struct Config;
}
namespace svc::db {
class Database;
}
namespace svc::crypto {
class PasswordHasher;
}
namespace svc::sms {
class SmsGateway;
}
namespace svc::push {
class PushClient;
}

namespace svc::core {

class Clock;
class SiteCache;

// Everything a handler may touch, owned by the worker (one per process, made
// after fork). Side effects sit behind interfaces so unit tests can swap in
// fakes; production code never asks whether it runs under a test.
struct Context {
  const config::Config& config;
  db::Database& db;
  db::Database* merge_db;  // read-only account for raw SQL merge fields; null when not configured
  const Clock& clock;
  crypto::PasswordHasher& hasher;
  sms::SmsGateway& sms;
  push::PushClient& push;
  SiteCache* site_cache;  // sites of recent requests; null = always read them
};

}  // namespace svc::core
