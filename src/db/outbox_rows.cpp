#include "db/outbox_rows.hpp"

namespace svc::db {

// In the order of kMessageColumns.
OutboxMessage read_message(RowReader& r) {
  OutboxMessage m;
  m.id = r.integer();
  m.site_id = r.integer();
  m.event = r.text();
  m.recipient = r.text();
  m.cc = r.text();
  m.bcc = r.text();
  m.from = r.text();
  m.subject = r.text();
  m.body = r.text();
  m.attempts = static_cast<int>(r.integer());
  m.created_unix = r.integer();
  return m;
}

}  // namespace svc::db
