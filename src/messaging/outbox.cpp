#include "messaging/outbox.hpp"

namespace svc::messaging {

long long enqueue(core::Context& ctx, const db::OutboxEntry& entry) {
  db::Transaction tx(ctx.db);
  db::NotificationRepo repo(ctx.db);
  long long id = repo.enqueue(entry);
  if (!entry.table_name.empty() && entry.record_id > 0) {
    repo.link(entry.table_name, entry.record_id, "svc_notification_log", id);
  }
  tx.commit();
  return id;
}

}  // namespace svc::messaging
