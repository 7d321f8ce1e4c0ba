#pragma once

#include <optional>
#include <string>

#include "db/database.hpp"

namespace svc::db {

// A customer's stored push subscription (svc_customers).
struct PushSubscription {
  long long customer_id = 0;
  std::string endpoint;  // pushsubscription
  std::string p256dh;    // base64url, the browser's P-256 public key
  std::string auth;      // base64url, 16-byte auth secret
};

class CustomerRepo {
 public:
  explicit CustomerRepo(Database& db) : db_(db) {}
  // The subscription of a customer of this site; nullopt when the customer
  // does not exist there or has no complete subscription.
  std::optional<PushSubscription> subscription(long long customer_id, long long site_id);
  // Forgets a subscription the push service reported gone (404/410).
  void clear_subscription(long long customer_id, long long site_id);
  // Stores a subscription (admin and tests; browsers reach it through the site's own backend).
  void set_subscription(long long customer_id, long long site_id, const PushSubscription& s);

 private:
  Database& db_;
};

}  // namespace svc::db
