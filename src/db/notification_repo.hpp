#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/outbox_mail.hpp"

namespace svc::db {

// Outbox priorities (svc_notification_log.priority): the claim takes lower
// numbers first.
inline constexpr int kPriorityHigh = 0;    // account mail: password reset, password changed
inline constexpr int kPriorityNormal = 1;  // template notifications
inline constexpr int kPriorityBulk = 2;    // templates marked bulk

// An admin-defined e-mail template (svc_notifications).
struct Template {
  long long id = 0;
  long long site_id = 0;
  std::string event;
  std::string locale;  // BCP 47, lower-case; "" = the template's default
  bool enabled = true;
  std::string subject;
  std::string content;
  std::string from;  // "" = the site's email_from
  std::string bcc;   // extra BCC list, "" = none
  int priority = 1;  // kPriorityNormal or kPriorityBulk (svc-admin template priority)
};

// A rendered e-mail queued in the outbox (svc_notification_log), status Pending.
struct OutboxEntry {
  OutboxMail mail;
  long long notification_id = 0;
  std::string table_name;  // "" = no linked record
  long long record_id = 0;
  std::string request_id;
  int priority = 1;  // outbox claim order: kPriorityHigh first
};

class NotificationRepo {
 public:
  explicit NotificationRepo(Database& db) : db_(db) {}

  // The enabled template of this site for the event (exact match), in its
  // default locale.
  std::optional<Template> find_enabled(long long site_id, const std::string& event);
  // The first enabled template of the event in the locales of `fallbacks`
  // (messaging::locale_fallbacks: most specific first, "" last).
  std::optional<Template> find_enabled(long long site_id, const std::string& event,
                                       const std::vector<std::string>& fallbacks);

  // Admin only (svc-admin template ...): the API never writes templates.
  // find() also returns a disabled template, and one whose event differs
  // only in case or accents (the column's collation treats them as equal).
  std::optional<Template> find(long long site_id, const std::string& event, const std::string& locale = "");
  std::vector<Template> list(long long site_id);
  // Inserts, or updates every column but the priority of the (site_id,
  // event, locale) template; returns its id.
  long long upsert(const Template& t);
  void set_enabled(long long id, bool enabled);
  // Sets the priority of the template with this id and of every other
  // locale of its event (a newsletter is bulk in every language).
  void set_priority(long long id, int priority);
  // Inserts a Pending row due now (its id is then Database::last_insert_id()).
  // Idempotent per (request_id, event, recipient): a second insert of the
  // same entry (a retry after a lost connection, whose first run may have
  // committed) changes nothing and leaves last_insert_id() at the existing
  // row, so the retry is safe and Database re-runs it. An entry without a
  // request_id is never deduplicated.
  void enqueue(const OutboxEntry& entry);
  // svc_related row: (master_table, master_id) → (linked_table, linked).
  void link(const std::string& master_table, long long master_id, const std::string& linked_table, long long linked);

 private:
  Database& db_;
};

}  // namespace svc::db
