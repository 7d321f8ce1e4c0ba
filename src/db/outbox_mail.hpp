#pragma once
// The e-mail one svc_notification_log row holds, as it is queued
// (OutboxEntry, notification_repo.hpp) and as it is claimed for sending
// (OutboxMessage, outbox_repo.hpp): one struct, held by both.

#include <string>

namespace svc::db {

struct OutboxMail {
  long long site_id = 0;
  std::string event;
  std::string recipient;  // comma-separated; "" when only BCC
  std::string from;       // "Name <addr>" or a bare address
  std::string cc;         // comma-separated
  std::string bcc;        // comma-separated
  std::string subject;
  std::string body;  // HTML
};

}  // namespace svc::db
