#pragma once

#include "core/context.hpp"
#include "db/notification_repo.hpp"

namespace svc::messaging {

// Queues a rendered e-mail: in one transaction, the Pending outbox row and,
// when the entry names a record (table_name + record_id), its svc_related
// link. Without a link it is one INSERT, which Database re-runs after a lost
// connection: the insert is idempotent per (request id, event, recipient),
// so the re-run never queues a second mail. Used by /message/notification
// and by the password-reset flow.
void enqueue(core::Context& ctx, const db::OutboxEntry& entry);

}  // namespace svc::messaging
