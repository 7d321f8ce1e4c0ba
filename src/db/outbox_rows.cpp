#include "db/outbox_rows.hpp"

namespace svc::db {

// In the order of kMessageColumns.
OutboxMessage read_message(RowReader& r) {
  OutboxMessage m;
  m.id = r.integer();
  m.mail.site_id = r.integer();
  m.mail.event = r.text();
  m.mail.recipient = r.text();
  m.mail.cc = r.text();
  m.mail.bcc = r.text();
  m.mail.from = r.text();
  m.mail.subject = r.text();
  m.mail.body = r.text();
  r.read(m.attempts, m.created_unix, m.priority);
  return m;
}

}  // namespace svc::db
