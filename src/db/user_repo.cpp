#include "db/user_repo.hpp"

#include <cppconn/exception.h>

namespace svc::db {
namespace {

// In the order of UserRepo::select().
User read_user(RowReader& r) {
  User u;
  u.id = r.integer();
  u.email = r.text();
  u.password = r.text();
  u.first_name = r.text();
  u.last_name = r.text();
  u.role = r.text();
  u.mobile = r.text();
  u.active = r.flag();
  u.token_version = r.integer();
  return u;
}

constexpr int kDuplicateKey = 1062;
constexpr int kUnknownColumn = 1054;

}  // namespace

std::string UserRepo::select(const char* where) const {
  return "SELECT id, user_email, password, first_name, last_name, primary_role, mobile, active, token_version FROM " +
         table_.quoted() + " WHERE " + where;
}

std::optional<User> UserRepo::find_by_email(const std::string& email) {
  return db_.one(
      select("user_email = ?"), [&](Params& p) { p.text(email); }, read_user);
}

std::optional<User> UserRepo::find_by_id(long long id) {
  return db_.one(
      select("id = ?"), [&](Params& p) { p.integer(id); }, read_user);
}

std::optional<long long> UserRepo::insert(const NewUser& user) {
  try {
    db_.execute("INSERT INTO " + table_.quoted() +
                    " (user_email, password, first_name, last_name, primary_role, mobile) VALUES (?, ?, ?, ?, ?, ?)",
                [&](Params& p) {
                  p.text(user.email).text(user.password_hash).text(user.first_name).text(user.last_name);
                  p.text(user.role).text_or_null(user.mobile);
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

void UserRepo::bump_token_version(long long id) {
  db_.execute("UPDATE " + table_.quoted() + " SET token_version = token_version + 1 WHERE id = ?",
              [&](Params& p) { p.integer(id); });
}

}  // namespace svc::db
