#pragma once
// The read-only queries `svc-admin doctor` runs against a deployment's
// database: which migrations are applied, which sites take requests without
// a key or send mail without a sender, whether the sender is keeping up, and template rows that cannot
// render. Nothing here writes.

#include <map>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

struct SenderActivity {
  long long last_sent_age = -1;    // seconds since the newest sent_at; -1 = nothing ever sent
  long long oldest_due_wait = -1;  // seconds the longest-waiting due, unclaimed Pending row
                                   // has been due; -1 = none waiting
  long long last_run_age = -1;     // seconds since a sender run last ended (svc_sender_status,
                                   // sql/006); -1 = no run recorded
};

class DoctorRepo {
 public:
  explicit DoctorRepo(Database& db) : db_(db) {}

  // SELECT VERSION(): connects, so a bad account or an unreachable server
  // throws here with the driver's message.
  std::string server_version();
  // version -> checksum of svc_schema_migrations; empty when the table is
  // missing (sql::SQLException propagates for other errors).
  std::map<int, std::string> applied_migrations();
  // "id name" of each active site whose api_key_hash is NULL or empty.
  std::vector<std::string> keyless_sites();
  // "id name" of each active site that sends mail (disable_email 0) and
  // whose email_from is NULL or blank.
  std::vector<std::string> senderless_sites();
  SenderActivity sender_activity();
  // "site N event E" of each enabled template of an active site whose
  // subject or content is empty.
  std::vector<std::string> empty_templates();
  // True when this account may read svc_sites (for the merge account that is
  // a leak: the table holds VAPID private keys and key hashes).
  bool can_read_sites();

 private:
  Database& db_;
};

}  // namespace svc::db
