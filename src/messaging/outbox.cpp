#include "messaging/outbox.hpp"

#include "db/transaction.hpp"

namespace svc::messaging {

void enqueue(core::Context& ctx, const db::OutboxEntry& entry) {
  db::NotificationRepo repo(ctx.db);
  if (entry.table_name.empty() || entry.record_id <= 0) {
    repo.enqueue(entry);
    return;
  }
  db::with_transaction_retry(ctx.db, [&] {
    db::Transaction tx(ctx.db);
    repo.enqueue(entry);
    repo.link(entry.table_name, entry.record_id, "svc_notification_log", ctx.db.last_insert_id());
    tx.commit();
  });
}

}  // namespace svc::messaging
