#pragma once
// Reading a result set: one row's columns in SELECT-list order.

#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace svc::db {

// Reads the columns of a row into fields, one column each, in order, by
// the field's type: std::string by text(), bool by flag(), another integer
// type by integer() (cast to the field's type: the column fits it), an
// optional integer likewise but nullopt for NULL. `Source` has text(),
// integer() and null_next() (the next column is NULL), each advancing past
// what it read but null_next().
// Usage: r.read(user.id, user.email, user.active);
template <class Source>
class FieldReader {
 public:
  bool flag() { return self().integer() != 0; }

  template <class... Fields>
  void read(Fields&... fields) {
    (read_one(fields), ...);
  }

 private:
  Source& self() { return static_cast<Source&>(*this); }
  void read_one(std::string& out) { out = self().text(); }
  void read_one(bool& out) { out = flag(); }
  template <class Int>
  requires std::is_integral_v<Int>
  void read_one(Int& out) { out = static_cast<Int>(self().integer()); }
  template <class Int>
  requires std::is_integral_v<Int>
  void read_one(std::optional<Int>& out) {
    const bool null = self().null_next();
    const long long value = self().integer();
    if (null) {
      out.reset();
    } else {
      out = static_cast<Int>(value);
    }
  }
};

// Reads the columns of the current row in SELECT-list order, by index (a
// lookup by name costs Connector/C++ an upper-casing search per column, which
// showed in profiles of the hot lookups). NULL reads as "" / 0. One reader
// per row: it starts at the first column.
class RowReader : public FieldReader<RowReader> {
 public:
  explicit RowReader(sql::ResultSet& rs) : rs_(rs) {}
  std::string text() {
    unsigned i = next_++;
    return rs_.isNull(i) ? std::string() : std::string(rs_.getString(i));
  }
  long long integer() {
    unsigned i = next_++;
    return rs_.isNull(i) ? 0 : static_cast<long long>(rs_.getInt64(i));
  }
  bool null_next() { return rs_.isNull(next_); }

 private:
  sql::ResultSet& rs_;
  unsigned next_ = 1;
};

// A row reader for a struct whose fields are the SELECT list, in order: each
// column goes into the next of `Fields` (pointers to Row's members) as
// FieldReader::read reads it, from a RowReader or another FieldReader.
// Pass it where a reader goes:
//   constexpr auto read_site = read_fields<Site, &Site::id, &Site::name>;
//   db.rows("SELECT id, name FROM svc_sites", kNoParams, read_site);
template <class Row, auto... Fields>
struct FieldsOf {
  template <class Reader>
  Row operator()(Reader& r) const {
    Row row;
    r.read((row.*Fields)...);
    return row;
  }
};
template <class Row, auto... Fields>
inline constexpr FieldsOf<Row, Fields...> read_fields{};

// A SELECT list of one table's columns in a join: "a, b" with alias "t"
// is "t.a, t.b".
inline std::string qualified_columns(std::string_view columns, std::string_view alias) {
  std::string out;
  size_t pos = 0;
  while (pos < columns.size()) {
    size_t end = std::min(columns.find(',', pos), columns.size());
    std::string_view column = columns.substr(pos, end - pos);
    while (!column.empty() && column.front() == ' ') column.remove_prefix(1);
    out.append(out.empty() ? "" : ", ").append(alias).append(".").append(column);
    pos = end + 1;
  }
  return out;
}

// The value type a row reader returns.
template <class Read>
using RowOf = std::remove_cvref_t<std::invoke_result_t<Read&, RowReader&>>;

// Runs a query statement and returns its result set.
inline std::unique_ptr<sql::ResultSet> query(sql::PreparedStatement& st) {
  return std::unique_ptr<sql::ResultSet>(st.executeQuery());
}

}  // namespace svc::db
