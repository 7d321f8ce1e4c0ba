#pragma once
// Binding a prepared statement's `?` placeholders, the mirror of RowReader.

#include <cppconn/prepared_statement.h>

#include <string>

namespace svc::db {

// Binds the `?` placeholders of a statement left to right. int binds as INT
// and long long as BIGINT, as the caller's type says; a bool binds as 0/1.
class Params {
 public:
  explicit Params(sql::PreparedStatement& st) : st_(st) {}
  Params& text(const std::string& value) {
    st_.setString(next_++, value);
    return *this;
  }
  Params& integer(int value) {
    st_.setInt(next_++, value);
    return *this;
  }
  Params& integer(long long value) {
    st_.setInt64(next_++, value);
    return *this;
  }
  Params& flag(bool value) { return integer(value ? 1 : 0); }
  Params& null() {
    st_.setNull(next_++, 0);
    return *this;
  }
  // NULL for "", the text otherwise (optional text columns).
  Params& text_or_null(const std::string& value) { return value.empty() ? null() : text(value); }
  // NULL for an id <= 0, the id otherwise (optional references: 0 = none).
  Params& id_or_null(long long id) { return id > 0 ? integer(id) : null(); }

 private:
  sql::PreparedStatement& st_;
  unsigned next_ = 1;
};

// The binder for a statement without placeholders.
inline constexpr auto kNoParams = [](Params&) {};

// "?, ?, ?" for an IN list of n values (n >= 1). The statement's text then
// varies with n: at most as many variants in a connection's statement
// cache as the caller has list lengths.
inline std::string placeholders(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += i == 0 ? "?" : ", ?";
  return s;
}

}  // namespace svc::db
