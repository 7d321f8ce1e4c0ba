#pragma once
// Account self-service (issue 38): the e-mail changes of sql/024, and every
// row svc holds about one user, to export or to erase.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/table_name.hpp"

namespace svc::db {

// A row of svc_email_changes (sql/024).
struct EmailChange {
  long long id = 0;
  std::string table;
  long long user_id = 0;
  long long site_id = 0;
  std::string session_id;
  std::string old_email;
  std::string new_email;
  long long created_at = 0;
  long long expires_at = 0;
  std::optional<long long> confirmed_at;
  std::optional<long long> undone_at;
};

// Rows for an export: the column names and each row's values as text
// ("" for NULL), in SELECT-list order.
struct ExportRows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

class AccountRepo {
 public:
  explicit AccountRepo(Database& db) : db_(db) {}

  // The address of user `id` of `table` becomes `fresh` only while it is
  // still `expected` (kStale otherwise); kTaken when another user has
  // `fresh` (the unique key).
  enum class EmailSet { kChanged, kTaken, kStale };
  EmailSet set_email(const TableName& table, long long id, const std::string& expected, const std::string& fresh);
  // Deletes the user's row.
  bool remove_user(const TableName& table, long long id);

  // Returns the new row's id.
  long long insert_email_change(const EmailChange& change);
  std::optional<EmailChange> find_email_change(long long id);
  // Marks a change confirmed (or undone) unless it was confirmed (undone)
  // already or undone; false when it was. Inside the caller's transaction.
  bool mark_confirmed(long long id, long long now);
  bool mark_undone(long long id, long long now);
  // Cancels every pending change of the user of `table` (neither confirmed
  // nor undone, not expired at `now`): marked undone at `now`, so neither of
  // its links works any more. Returns how many. Inside the caller's
  // transaction, if any.
  int cancel_pending_changes(const std::string& table, long long user_id, long long now);

  // Removes the user's OAuth consents given (or widened) at or after
  // `since` (unix seconds; 0 = all). Returns how many.
  int remove_consents_since(const std::string& table, long long user_id, long long since);

  // The rows of one part of a user's export. `part` is one of
  // export_parts(); `email` is the user's address. The "mail" part is the
  // mail sent to `email` by svc itself (site 0) or by a site the user has a
  // session row of; the caller asks for it only once the address is proven.
  ExportRows export_part(const std::string& part, const std::string& table, long long user_id,
                         const std::string& email);
  static const std::vector<std::string>& export_parts();

  // Deletes every row keyed to the user of `table` but the user's own row
  // and the audit log (sessions, factors, recovery codes, challenges,
  // passkeys, codes and their events, the login throttle of `email`,
  // version snapshots, e-mail changes, grants on sites). Suppressions of the address stay.
  // The user's audit rows lose their user id, IP and user agent. Run it
  // inside the transaction that deletes the user.
  void erase_user_rows(const std::string& table, long long user_id, const std::string& email);

 private:
  Database& db_;
};

}  // namespace svc::db
