#include "db/user_repo.hpp"

#include <cppconn/exception.h>

namespace svc::db {
namespace {

User read_user(sql::ResultSet& rs) {
  // In the order of UserRepo::select().
  RowReader r(rs);
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

}  // namespace

std::string UserRepo::select(const char* where) const {
  return "SELECT id, user_email, password, first_name, last_name, primary_role, mobile, active, token_version FROM " +
         table_.quoted() + " WHERE " + where;
}

std::optional<User> UserRepo::find_by_email(const std::string& email) {
  return db_.with(select("user_email = ?"), [&](sql::PreparedStatement& st) -> std::optional<User> {
    st.setString(1, email);
    auto rs = query(st);
    if (!rs->next()) return std::nullopt;
    return read_user(*rs);
  });
}

std::optional<User> UserRepo::find_by_id(long long id) {
  return db_.with(select("id = ?"), [&](sql::PreparedStatement& st) -> std::optional<User> {
    st.setInt64(1, id);
    auto rs = query(st);
    if (!rs->next()) return std::nullopt;
    return read_user(*rs);
  });
}

std::optional<long long> UserRepo::insert(const NewUser& user) {
  try {
    db_.with("INSERT INTO " + table_.quoted() +
                 " (user_email, password, first_name, last_name, primary_role, mobile) VALUES (?, ?, ?, ?, ?, ?)",
             [&](sql::PreparedStatement& st) {
               st.setString(1, user.email);
               st.setString(2, user.password_hash);
               st.setString(3, user.first_name);
               st.setString(4, user.last_name);
               st.setString(5, user.role);
               if (user.mobile.empty()) st.setNull(6, 0); else st.setString(6, user.mobile);
               st.executeUpdate();
             });
  } catch (const sql::SQLException& e) {
    if (e.getErrorCode() == kDuplicateKey) return std::nullopt;
    throw;
  }
  return db_.last_insert_id();
}

bool UserRepo::replace_password_hash(long long id, const std::string& expected, const std::string& fresh) {
  return db_.with("UPDATE " + table_.quoted() + " SET password = ? WHERE id = ? AND password = ?",
                  [&](sql::PreparedStatement& st) {
                    st.setString(1, fresh);
                    st.setInt64(2, id);
                    st.setString(3, expected);
                    return st.executeUpdate() == 1;
                  });
}

void UserRepo::bump_token_version(long long id) {
  db_.with("UPDATE " + table_.quoted() + " SET token_version = token_version + 1 WHERE id = ?",
           [&](sql::PreparedStatement& st) {
             st.setInt64(1, id);
             st.executeUpdate();
           });
}

}  // namespace svc::db
