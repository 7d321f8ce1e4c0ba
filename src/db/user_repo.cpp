#include "db/user_repo.hpp"

#include <cppconn/exception.h>

#include <map>
#include <stdexcept>
#include <utility>

#include "db/webhook_repo.hpp"

namespace svc::db {
namespace {

User read_user(RowReader& r) { return UserRepo::read(r); }

constexpr int kDuplicateKey = 1062;
constexpr int kUnknownColumn = 1054;

// Per process: the answer for a table does not change while it runs
// (adding a column to a live table is followed by a reload). Keyed by
// table and column.
std::map<std::pair<std::string, std::string>, bool>& known_columns() {
  static std::map<std::pair<std::string, std::string>, bool> known;
  return known;
}

}  // namespace

bool UserRepo::has_column(const char* column) {
  auto& known = known_columns();
  auto key = std::make_pair(table_.str(), std::string(column));
  if (auto it = known.find(key); it != known.end()) return it->second;
  const bool has =
      db_.one(
             "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()"
             " AND table_name = ? AND column_name = ?",
             [&](Params& p) { p.text(table_.str()).text(column); }, [](RowReader& r) { return r.integer(); })
          .value_or(0) > 0;
  known[key] = has;
  return has;
}

bool UserRepo::tracks_verification() { return has_column("email_verified_at"); }

bool UserRepo::tracks_pools() { return has_column("pool_id"); }

// A table without the pool_id column holds the default pool's users only:
// another pool's lookup runs the same statement and finds no one.
std::string UserRepo::by_email() {
  return tracks_pools() ? "user_email = ? AND pool_id = ?" : "user_email = ? AND ? = " + std::to_string(kDefaultPool);
}

void UserRepo::bind_email(Params& p, const std::string& email) { p.text(email).integer(pool_); }

std::string UserRepo::select(const char* where, const std::string& extra) {
  return "SELECT " + columns("", "password") + extra + " FROM " + table_.quoted() + " WHERE " + where;
}

std::string UserRepo::columns(const std::string& prefix, const char* password) {
  const std::string verified = tracks_verification() ? prefix + "email_verified_at IS NOT NULL" : "0";
  const std::string pool = tracks_pools() ? prefix + "pool_id" : std::to_string(kDefaultPool);
  const std::string& p = prefix;
  return p + "id, " + p + "user_email, " + password + ", " + p + "first_name, " + p + "last_name, " + p +
         "primary_role, " + p + "mobile, " + p + "active, " + p + "token_version, " + verified + ", " + pool;
}

std::string UserRepo::columns_without_password(const std::string& alias) { return columns(alias + ".", "NULL"); }

std::string UserRepo::unchanged_condition() {
  const std::string verified = tracks_verification() ? "(u.email_verified_at IS NOT NULL)" : "0";
  return "EXISTS (SELECT 1 FROM " + table_.quoted() +
         " u WHERE u.id = ? AND u.active <> 0 AND u.token_version = ? AND " + verified + " = ?)";
}

std::optional<User> UserRepo::find_by_email(const std::string& email) {
  return db_.one(
      select(by_email().c_str()), [&](Params& p) { bind_email(p, email); }, read_user);
}

std::vector<User> UserRepo::page_by_email(const std::string& prefix, const std::string& after_email, int limit) {
  // LIKE's own characters in the prefix match themselves.
  std::string pattern;
  for (char c : prefix) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += c;
  }
  pattern += '%';
  const std::string pool = tracks_pools() ? "pool_id = ?" : "? = " + std::to_string(kDefaultPool);
  return db_.rows(
      "SELECT " + columns("", "''") + " FROM " + table_.quoted() + " WHERE " + pool +
          " AND user_email LIKE ? AND user_email > ? ORDER BY user_email LIMIT ?",
      [&](Params& p) { p.integer(pool_).text(pattern).text(after_email).integer(limit); }, read_user);
}

bool UserRepo::set_active(long long id, bool active) {
  db_.execute_idempotent("UPDATE " + table_.quoted() + " SET active = ? WHERE id = ?",
                         [&](Params& p) { p.flag(active).integer(id); });
  return find_by_id(id).has_value();
}

std::vector<long long> UserRepo::pools_with(const std::string& email) {
  if (!tracks_pools()) {
    return find_by_email(email) ? std::vector<long long>{kDefaultPool} : std::vector<long long>{};
  }
  return db_.rows(
      "SELECT pool_id FROM " + table_.quoted() + " WHERE user_email = ? ORDER BY pool_id",
      [&](Params& p) { p.text(email); }, [](RowReader& r) { return r.integer(); });
}

std::optional<LoginUser> UserRepo::find_for_login(const std::string& email, long long site_id) {
  // 0: no second factor; 1: a TOTP factor; 2: one and a passkey for the
  // site (looked for only for a user with a factor).
  const std::string id = table_.quoted() + ".id";
  const std::string extra =
      ", CASE WHEN EXISTS(SELECT 1 FROM svc_mfa_factors f WHERE f.auth_table = ? AND f.user_id = " + id +
      " AND f.confirmed_at IS NOT NULL) THEN 1 + EXISTS(SELECT 1 FROM svc_passkeys k WHERE k.site_id = ?"
      " AND k.auth_table = ? AND k.user_id = " +
      id + " AND k.user_handle <> '') ELSE 0 END, " + has_subscriber("?");
  return db_.one(
      select(by_email().c_str(), extra),
      [&](Params& p) {
        p.text(table_.str()).integer(site_id).text(table_.str()).integer(site_id).text("session.created");
        bind_email(p, email);
      },
      [](RowReader& r) {
        LoginUser u{read_user(r)};
        int factors = 0;
        r.read(factors, u.session_event);
        u.second_factor = factors > 0;
        u.has_passkey = factors > 1;
        return u;
      });
}

std::optional<User> UserRepo::find_by_id(long long id) {
  return db_.one(
      select("id = ?"), [&](Params& p) { p.integer(id); }, read_user);
}

std::optional<long long> UserRepo::insert(const NewUser& user) {
  const bool pools = tracks_pools();
  if (!pools && pool_ != kDefaultPool) {
    throw std::runtime_error(
        "auth table " + table_.str() +
        " has no pool_id column, so it holds only the default pool's users: run svc-admin migrate");
  }
  try {
    db_.execute("INSERT INTO " + table_.quoted() +
                    " (user_email, password, first_name, last_name, primary_role, mobile" +
                    (pools ? ", pool_id) VALUES (?, ?, ?, ?, ?, ?, ?)" : ") VALUES (?, ?, ?, ?, ?, ?)"),
                [&](Params& p) {
                  p.text(user.email).text(user.password_hash).text(user.first_name).text(user.last_name);
                  p.text(user.role).text_or_null(user.mobile);
                  if (pools) p.integer(pool_);
                });
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kDuplicateKey) return std::nullopt;
    throw;
  }
  return db_.last_insert_id();
}

std::string UserRepo::locale(long long id) {
  try {
    return db_
        .one(
            "SELECT COALESCE(locale, '') FROM " + table_.quoted() + " WHERE id = ?", [&](Params& p) { p.integer(id); },
            [](RowReader& r) { return r.text(); })
        .value_or("");
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kUnknownColumn) return "";
    throw;
  }
}

bool UserRepo::set_locale(long long id, const std::string& locale) {
  try {
    return db_.execute("UPDATE " + table_.quoted() + " SET locale = ? WHERE id = ?",
                       [&](Params& p) { p.text_or_null(locale).integer(id); }) == 1;
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kUnknownColumn) return false;
    throw;
  }
}

bool UserRepo::replace_password_hash(long long id, const std::string& expected, const std::string& fresh) {
  return db_.execute("UPDATE " + table_.quoted() + " SET password = ? WHERE id = ? AND password = ?",
                     [&](Params& p) { p.text(fresh).integer(id).text(expected); }) == 1;
}

AddressProof UserRepo::prove_address(long long id, long long now) {
  if (!tracks_verification()) return {};
  const long long previous = db_.one(
                                    "SELECT COALESCE(UNIX_TIMESTAMP(email_verified_at), 0) FROM " + table_.quoted() +
                                        " WHERE id = ? FOR UPDATE",
                                    [&](Params& p) { p.integer(id); }, [](RowReader& r) { return r.integer(); })
                                 .value_or(0);
  db_.execute("UPDATE " + table_.quoted() + " SET email_verified_at = FROM_UNIXTIME(?) WHERE id = ?",
              [&](Params& p) { p.integer(now).integer(id); });
  return {true, previous};
}

void UserRepo::bump_token_version(long long id) {
  db_.execute("UPDATE " + table_.quoted() + " SET token_version = token_version + 1 WHERE id = ?",
              [&](Params& p) { p.integer(id); });
}

}  // namespace svc::db
