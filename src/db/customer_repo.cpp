#include "db/customer_repo.hpp"

namespace svc::db {

std::optional<PushSubscription> CustomerRepo::subscription(long long customer_id, long long site_id) {
  return db_.with("SELECT pushsubscription, p256dh, auth FROM svc_customers WHERE id = ? AND site_id = ?",
                  [&](sql::PreparedStatement& st) -> std::optional<PushSubscription> {
                    st.setInt64(1, customer_id);
                    st.setInt64(2, site_id);
                    auto rs = query(st);
                    if (!rs->next()) return std::nullopt;
                    PushSubscription s{customer_id, column_string(*rs, "pushsubscription"),
                                       column_string(*rs, "p256dh"), column_string(*rs, "auth")};
                    if (s.endpoint.empty() || s.p256dh.empty() || s.auth.empty()) return std::nullopt;
                    return s;
                  });
}

void CustomerRepo::clear_subscription(long long customer_id, long long site_id) {
  db_.with("UPDATE svc_customers SET pushsubscription = NULL, p256dh = NULL, auth = NULL WHERE id = ? AND site_id = ?",
           [&](sql::PreparedStatement& st) {
             st.setInt64(1, customer_id);
             st.setInt64(2, site_id);
             st.executeUpdate();
           });
}

void CustomerRepo::set_subscription(long long customer_id, long long site_id, const PushSubscription& s) {
  db_.with("UPDATE svc_customers SET pushsubscription = ?, p256dh = ?, auth = ? WHERE id = ? AND site_id = ?",
           [&](sql::PreparedStatement& st) {
             st.setString(1, s.endpoint);
             st.setString(2, s.p256dh);
             st.setString(3, s.auth);
             st.setInt64(4, customer_id);
             st.setInt64(5, site_id);
             st.executeUpdate();
           });
}

}  // namespace svc::db
