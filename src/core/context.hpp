#pragma once

namespace svc::config {
struct Config;
}
namespace svc::db {
class Database;
}
namespace svc::crypto {
class PasswordHasher;
class BreachedList;
}  // namespace svc::crypto
namespace svc::sms {
class SmsGateway;
}
namespace svc::push {
class PushClient;
}
namespace svc::http {
class SiteCache;
}
namespace svc::auth {
class UserCache;
class SigningKeyCache;
class FolderCache;
}  // namespace svc::auth
namespace svc::messaging {
class TemplateCache;
}
namespace svc::oidc {
class ClientCache;
}

namespace svc::core {

class Clock;
class Random;

// Everything a handler may touch, owned by the worker (one per process, made
// after fork; app::Services builds the production one). The clock, the
// randomness of SMS codes, password hashing, the SMS gateway and the push
// client sit behind interfaces so tests can swap in fakes; the database is a
// real connection (tests point it at the stack's MariaDB). Production code
// never asks whether it runs under a test.
struct Context {
  const config::Config& config;
  db::Database& db;
  db::Database* merge_db;  // read-only account for raw SQL merge fields; null when not configured
  const Clock& clock;
  Random& random;
  crypto::PasswordHasher& hasher;
  sms::SmsGateway& sms;
  push::PushClient& push;
  http::SiteCache* site_cache;  // sites of recent requests; null = always read them
  // Users of recent token requests ([auth] user_cache_seconds, at most 1 s);
  // null = always read them.
  auth::UserCache* user_cache = nullptr;
  // Templates of recent notifications ([server] template_cache_seconds);
  // null = always read them.
  messaging::TemplateCache* template_cache = nullptr;
  // The access-token key set for [tokens] key_cache_seconds
  // (auth/tokens/signing_keys.hpp); null = read it for every request.
  auth::SigningKeyCache* signing_keys = nullptr;
  // Folder links of recent getFolderLimits requests ([auth]
  // user_cache_seconds, at most 1 s); null = always read them.
  auth::FolderCache* folder_cache = nullptr;
  // [auth] breached_list as this worker maps it; null = no list (the
  // password rule goes without it).
  crypto::BreachedList* breached = nullptr;
  // OAuth clients of recent OpenID Connect requests ([server]
  // site_cache_seconds); null = always read them.
  oidc::ClientCache* client_cache = nullptr;
};

}  // namespace svc::core
