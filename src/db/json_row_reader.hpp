#pragma once
// Reading a row that a statement returned as one JSON array (JSON_ARRAY(...)
// in the SELECT list), as RowReader reads a result row.

#include <rapidjson/document.h>

#include <string>

#include "db/row_reader.hpp"

namespace svc::db {

// Reads the array's values in order: a string as text, a number as an
// integer (or its digits as text), true / false (what JSON_ARRAY makes of a
// comparison such as `x IS NOT NULL`) as 1 / 0, NULL as "" / 0, past the
// end as NULL.
class JsonRowReader : public FieldReader<JsonRowReader> {
 public:
  explicit JsonRowReader(const rapidjson::Value& array) : array_(array) {}
  std::string text() {
    const rapidjson::Value* v = next();
    if (!v || v->IsNull()) return {};
    if (v->IsString()) return std::string(v->GetString(), v->GetStringLength());
    if (v->IsBool()) return v->GetBool() ? "1" : "0";
    return std::to_string(number(*v));
  }
  long long integer() {
    const rapidjson::Value* v = next();
    if (v && v->IsBool()) return v->GetBool() ? 1 : 0;
    return v && v->IsNumber() ? number(*v) : 0;
  }
  bool null_next() const { return !array_.IsArray() || next_ >= array_.Size() || array_[next_].IsNull(); }

 private:
  const rapidjson::Value* next() {
    if (!array_.IsArray() || next_ >= array_.Size()) return nullptr;
    return &array_[next_++];
  }
  static long long number(const rapidjson::Value& v) {
    if (v.IsInt64()) return v.GetInt64();
    if (v.IsUint64()) return static_cast<long long>(v.GetUint64());
    return static_cast<long long>(v.GetDouble());
  }

  const rapidjson::Value& array_;
  rapidjson::SizeType next_ = 0;
};

}  // namespace svc::db
