#pragma once
// The outbox row as the sender reads it, shared by the claim
// (outbox_claim.cpp) and the rest of OutboxRepo (outbox_repo.cpp).

#include "db/database.hpp"
#include "db/outbox_repo.hpp"

namespace svc::db {

// The SELECT list read_message() reads, in its order.
inline constexpr const char* kMessageColumns =
    "id, site_id, event, recipient, cc, bcc, `from`, subject, body, attempts,"
    " UNIX_TIMESTAMP(created_at) AS created_unix, priority";

// One row of kMessageColumns.
OutboxMessage read_message(RowReader& r);

}  // namespace svc::db
