#include "db/customer_repo.hpp"

namespace svc::db {

std::optional<PushSubscription> CustomerRepo::subscription(long long customer_id, long long site_id) {
  auto s = db_.one(
      "SELECT pushsubscription, p256dh, auth FROM svc_customers WHERE id = ? AND site_id = ?",
      [&](Params& p) { p.integer(customer_id).integer(site_id); },
      [&](RowReader& r) {
        PushSubscription sub;
        sub.customer_id = customer_id;
        r.read(sub.endpoint, sub.p256dh, sub.auth);
        return sub;
      });
  if (!s || s->endpoint.empty() || s->p256dh.empty() || s->auth.empty()) return std::nullopt;
  return s;
}

// Both set fixed values: running one twice leaves the same row, so a lost
// connection may re-run it.
void CustomerRepo::clear_subscription(long long customer_id, long long site_id) {
  db_.execute_idempotent(
      "UPDATE svc_customers SET pushsubscription = NULL, p256dh = NULL, auth = NULL WHERE id = ? AND site_id = ?",
      [&](Params& p) { p.integer(customer_id).integer(site_id); });
}

void CustomerRepo::set_subscription(long long customer_id, long long site_id, const PushSubscription& s) {
  db_.execute_idempotent(
      "UPDATE svc_customers SET pushsubscription = ?, p256dh = ?, auth = ? WHERE id = ? AND site_id = ?",
      [&](Params& p) { p.text(s.endpoint).text(s.p256dh).text(s.auth).integer(customer_id).integer(site_id); });
}

}  // namespace svc::db
