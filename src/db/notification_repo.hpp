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

  // Site management only (manage/templates.hpp): the messaging API never
  // writes templates.
  // find() also returns a disabled template, and one whose event differs
  // only in case or accents (the column's collation treats them as equal).
  std::optional<Template> find(long long site_id, const std::string& event, const std::string& locale = "");
  std::vector<Template> list(long long site_id);
  // The template with this id of this site (another site's id finds
  // nothing); `lock`: FOR UPDATE, inside a transaction.
  std::optional<Template> find_by_id(long long site_id, long long id, bool lock = false);
  // The site's templates after (after_event, after_locale) in (event,
  // locale) order ("" and "" = from the first), at most `limit`.
  std::vector<Template> page(long long site_id, const std::string& after_event, const std::string& after_locale,
                             int limit);
  // Inserts a template; returns its id.
  long long insert(const Template& t);
  // Writes every column of the template t.id of t.site_id.
  void update(const Template& t);
  void remove(long long site_id, long long id);
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
