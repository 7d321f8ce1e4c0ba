#include "db/account_repo.hpp"

#include <cppconn/exception.h>

#include <algorithm>
#include <stdexcept>

namespace svc::db {
namespace {

constexpr int kDuplicateKey = 1062;  // ER_DUP_ENTRY: the unique key of the address

constexpr const char* kChangeColumns =
    "id, auth_table, user_id, site_id, session_id, old_email, new_email, created_at, expires_at, confirmed_at,"
    " undone_at";

constexpr auto read_change =
    read_fields<EmailChange, &EmailChange::id, &EmailChange::table, &EmailChange::user_id, &EmailChange::site_id,
                &EmailChange::session_id, &EmailChange::old_email, &EmailChange::new_email, &EmailChange::created_at,
                &EmailChange::expires_at, &EmailChange::confirmed_at, &EmailChange::undone_at>;

// One part of an export: its columns (no secret, hash or token among them)
// and the statement; the statement binds (table, user id), or for "mail"
// (address, table, user id).
struct Part {
  const char* name;
  std::vector<std::string> columns;
  const char* from;  // FROM ... WHERE ... ORDER BY ...
};

const std::vector<Part>& parts() {
  static const std::vector<Part> kParts = {
      {"sessions",
       {"id", "site_id", "created_at", "last_seen_at", "expires_at", "auth_time", "amr", "ip", "user_agent",
        "revoked_at", "revoked_reason"},
       " FROM svc_sessions WHERE auth_table = ? AND user_id = ? ORDER BY created_at, id"},
      {"second_factor", {"created_at", "confirmed_at"}, " FROM svc_mfa_factors WHERE auth_table = ? AND user_id = ?"},
      {"recovery_codes",
       {"created_at", "used_at"},
       " FROM svc_mfa_recovery_codes WHERE auth_table = ? AND user_id = ? ORDER BY created_at"},
      {"passkeys",
       {"id", "site_id", "name", "created_at", "last_used_at", "backup_eligible", "backed_up", "aaguid", "transports",
        "attestation_fmt"},
       " FROM svc_passkeys WHERE auth_table = ? AND user_id = ? ORDER BY id"},
      {"email_changes",
       {"id", "site_id", "old_email", "new_email", "created_at", "expires_at", "confirmed_at", "undone_at"},
       " FROM svc_email_changes WHERE auth_table = ? AND user_id = ? ORDER BY id"},
      {"versions",
       {"id", "action", "snapshot", "created_at"},
       " FROM svc_versions WHERE table_name = ? AND record_id = ? ORDER BY id"},
      {"audit",
       {"id", "event", "site_id", "ip", "user_agent", "detail", "created_at"},
       " FROM svc_audit_log WHERE auth_table = ? AND user_id = ? ORDER BY id"},
      {"mail",
       {"id", "site_id", "event", "subject", "status", "created_at", "sent_at"},
       " FROM svc_notification_log WHERE recipient = ? AND (site_id = 0 OR site_id IN (SELECT site_id FROM"
       " svc_sessions WHERE auth_table = ? AND user_id = ?)) ORDER BY id"},
  };
  return kParts;
}

std::string select_list(const std::vector<std::string>& columns) {
  std::string out;
  for (const auto& c : columns) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace

AccountRepo::EmailSet AccountRepo::set_email(const TableName& table, long long id, const std::string& expected,
                                             const std::string& fresh) {
  try {
    const int changed = db_.execute("UPDATE " + table.quoted() + " SET user_email = ? WHERE id = ? AND user_email = ?",
                                    [&](Params& p) { p.text(fresh).integer(id).text(expected); });
    return changed == 1 ? EmailSet::kChanged : EmailSet::kStale;
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kDuplicateKey) return EmailSet::kTaken;
    throw;
  }
}

bool AccountRepo::remove_user(const TableName& table, long long id) {
  return db_.execute("DELETE FROM " + table.quoted() + " WHERE id = ?", [&](Params& p) { p.integer(id); }) == 1;
}

long long AccountRepo::insert_email_change(const EmailChange& c) {
  db_.execute(
      "INSERT INTO svc_email_changes (auth_table, user_id, site_id, session_id, old_email, new_email, created_at,"
      " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      [&](Params& p) {
        p.text(c.table).integer(c.user_id).integer(c.site_id).text(c.session_id).text(c.old_email);
        p.text(c.new_email).integer(c.created_at).integer(c.expires_at);
      });
  return db_.last_insert_id();
}

std::optional<EmailChange> AccountRepo::find_email_change(long long id) {
  return db_.one(
      std::string("SELECT ") + kChangeColumns + " FROM svc_email_changes WHERE id = ? FOR UPDATE",
      [&](Params& p) { p.integer(id); }, read_change);
}

bool AccountRepo::mark_confirmed(long long id, long long now) {
  return db_.execute(
             "UPDATE svc_email_changes SET confirmed_at = ? WHERE id = ? AND confirmed_at IS NULL AND undone_at IS "
             "NULL",
             [&](Params& p) { p.integer(now).integer(id); }) == 1;
}

bool AccountRepo::mark_undone(long long id, long long now) {
  return db_.execute("UPDATE svc_email_changes SET undone_at = ? WHERE id = ? AND undone_at IS NULL",
                     [&](Params& p) { p.integer(now).integer(id); }) == 1;
}

int AccountRepo::cancel_pending_changes(const std::string& table, long long user_id, long long now) {
  return db_.execute(
      "UPDATE svc_email_changes SET undone_at = ? WHERE auth_table = ? AND user_id = ? AND confirmed_at IS NULL"
      " AND undone_at IS NULL AND expires_at > ?",
      [&](Params& p) { p.integer(now).text(table).integer(user_id).integer(now); });
}

int AccountRepo::remove_consents_since(const std::string& table, long long user_id, long long since) {
  return db_.execute("DELETE FROM svc_oauth_consents WHERE auth_table = ? AND user_id = ? AND created_at >= ?",
                     [&](Params& p) { p.text(table).integer(user_id).integer(since); });
}

const std::vector<std::string>& AccountRepo::export_parts() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& p : parts()) names.emplace_back(p.name);
    return names;
  }();
  return kNames;
}

ExportRows AccountRepo::export_part(const std::string& part, const std::string& table, long long user_id,
                                    const std::string& email) {
  const auto& all = parts();
  auto it = std::find_if(all.begin(), all.end(), [&](const Part& p) { return part == p.name; });
  if (it == all.end()) throw std::invalid_argument("unknown export part " + part);
  ExportRows out;
  out.columns = it->columns;
  const size_t n = it->columns.size();
  const bool by_address = part == "mail";
  out.rows = db_.rows(
      "SELECT " + select_list(it->columns) + it->from,
      [&](Params& p) {
        if (by_address) p.text(email);
        p.text(table).integer(user_id);
      },
      [n](RowReader& r) {
        std::vector<std::string> row;
        for (size_t i = 0; i < n; ++i) row.push_back(r.text());
        return row;
      });
  return out;
}

void AccountRepo::erase_user_rows(const std::string& table, long long user_id, const std::string& email) {
  static const char* const kByUser[] = {
      "DELETE FROM svc_sessions WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_mfa_factors WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_mfa_recovery_codes WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_mfa_challenges WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_mfa_wrong_answers WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_passkeys WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_passkey_challenges WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_email_codes WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_email_code_events WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_sms_codes WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_sms_events WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_email_changes WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_oauth_consents WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_site_admins WHERE auth_table = ? AND user_id = ?",
      "DELETE FROM svc_versions WHERE table_name = ? AND record_id = ?",
      "UPDATE svc_audit_log SET user_id = NULL, ip = NULL, user_agent = NULL WHERE auth_table = ? AND user_id = ?",
  };
  for (const char* sql : kByUser) {
    db_.execute(sql, [&](Params& p) { p.text(table).integer(user_id); });
  }
  db_.execute("DELETE FROM svc_login_throttle WHERE auth_table = ? AND email = LOWER(?)",
              [&](Params& p) { p.text(table).text(email); });
}

}  // namespace svc::db
